from __future__ import annotations

from django.contrib.auth.views import LogoutView
from django.urls import path

from frontend.views import account, audit, graph, keys, members, memory, roles, workspace

urlpatterns = [
    path("", account.home, name="home"),
    path("signup/", account.signup, name="signup"),
    path("login/", account.MnemoLoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("new/", account.workspace_new, name="workspace_new"),
    path("invite/<str:token>/", account.invitation_accept, name="invitation_accept"),
    path("t/<slug:slug>/", workspace.overview, name="tenant_home"),
    path("t/<slug:slug>/connect/", workspace.connect, name="connect"),
    path("t/<slug:slug>/keys/", keys.keys, name="keys"),
    path("t/<slug:slug>/keys/new", keys.key_create, name="key_create"),
    path("t/<slug:slug>/keys/<int:key_id>/revoke", keys.key_revoke, name="key_revoke"),
    path("t/<slug:slug>/members/", members.members, name="members"),
    path("t/<slug:slug>/members/invite", members.invite, name="member_invite"),
    path("t/<slug:slug>/members/<int:member_id>/role", members.member_role, name="member_role"),
    path(
        "t/<slug:slug>/members/<int:member_id>/remove", members.member_remove, name="member_remove"
    ),
    path(
        "t/<slug:slug>/invitations/<int:invitation_id>/revoke",
        members.invitation_revoke,
        name="invitation_revoke",
    ),
    path("t/<slug:slug>/audit/", audit.audit_log, name="audit"),
    path("t/<slug:slug>/memory/", memory.memory_home, name="memory_home"),
    path("t/<slug:slug>/import/", memory.memory_import, name="memory_import"),
    path("t/<slug:slug>/import/<int:job_id>/", memory.import_detail, name="import_detail"),
    path("t/<slug:slug>/memory/<str:network>/", memory.memory_browse, name="memory_browse"),
    path("t/<slug:slug>/memory/<str:network>/counts", memory.network_counts, name="network_counts"),
    path(
        "t/<slug:slug>/memory/<str:network>/bulk", memory.engrams_bulk_action, name="engrams_bulk"
    ),
    path(
        "t/<slug:slug>/memory/<str:network>/export.jsonl",
        memory.network_export,
        name="network_export",
    ),
    path(
        "t/<slug:slug>/memory/<str:network>/engrams/<int:engram_id>/",
        memory.engram_detail,
        name="engram_detail",
    ),
    path(
        "t/<slug:slug>/memory/<str:network>/engrams/<int:engram_id>/edit",
        memory.engram_edit,
        name="engram_edit",
    ),
    path(
        "t/<slug:slug>/memory/<str:network>/engrams/<int:engram_id>/delete",
        memory.engram_remove,
        name="engram_delete",
    ),
    path("t/<slug:slug>/memory/<str:network>/graph/", graph.graph, name="graph"),
    path("t/<slug:slug>/memory/<str:network>/graph.json", graph.graph_data, name="graph_data"),
    path("t/<slug:slug>/memory/<str:network>/cues", graph.cue_search, name="cue_search"),
    path(
        "t/<slug:slug>/memory/<str:network>/cues/<int:cue_id>/",
        graph.cue_memories,
        name="cue_memories",
    ),
    path("t/<slug:slug>/memory/<str:network>/playground/", graph.playground, name="playground"),
    path("t/<slug:slug>/roles/", roles.roles, name="roles"),
    path("t/<slug:slug>/roles/new/", roles.role_new, name="role_new"),
    path("t/<slug:slug>/roles/check", roles.role_check, name="role_check"),
    path("t/<slug:slug>/roles/<slug:role_slug>/", roles.role_detail, name="role_detail"),
    path("t/<slug:slug>/roles/<slug:role_slug>/copy", roles.role_copy, name="role_copy"),
    path("t/<slug:slug>/roles/<slug:role_slug>/archive", roles.role_archive, name="role_archive"),
    path("t/<slug:slug>/roles/<slug:role_slug>/history/", roles.role_history, name="role_history"),
    path(
        "t/<slug:slug>/roles/<slug:role_slug>/history/<int:version>/restore",
        roles.role_restore,
        name="role_restore",
    ),
    path("t/<slug:slug>/role-resources/", roles.resources, name="resources"),
    path("t/<slug:slug>/role-resources/new/", roles.resource_new, name="resource_new"),
    path(
        "t/<slug:slug>/role-resources/<str:kind>/<str:name>/",
        roles.resource_detail,
        name="resource_detail",
    ),
    path(
        "t/<slug:slug>/role-resources/<str:kind>/<str:name>/delete",
        roles.resource_delete,
        name="resource_delete",
    ),
]
