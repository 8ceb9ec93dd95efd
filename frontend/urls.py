"""Dashboard URLs. Everything inside a workspace lives under ``/t/<slug>/``; the views get the
workspace from ``tenant_view`` and the rest of the path as arguments."""

from __future__ import annotations

from django.contrib.auth.views import LogoutView
from django.urls import URLPattern, URLResolver, include, path

from frontend.views import (
    account,
    audit,
    graph,
    keys,
    knowledge,
    members,
    memory,
    moderation,
    roles,
    staff,
    work,
    workspace,
)

# /t/<slug>/memory/<network>/...
network_patterns: list[URLPattern | URLResolver] = [
    path("", memory.memory_browse, name="memory_browse"),
    path("counts", memory.network_counts, name="network_counts"),
    path("bulk", memory.engrams_bulk_action, name="engrams_bulk"),
    path("export.jsonl", memory.network_export, name="network_export"),
    path("engrams/<int:engram_id>/", memory.engram_detail, name="engram_detail"),
    path("engrams/<int:engram_id>/edit", memory.engram_edit, name="engram_edit"),
    path("engrams/<int:engram_id>/delete", memory.engram_remove, name="engram_delete"),
    path("graph/", graph.graph, name="graph"),
    path("graph.json", graph.graph_data, name="graph_data"),
    path("cues", graph.cue_search, name="cue_search"),
    path("cues/<int:cue_id>/", graph.cue_memories, name="cue_memories"),
    path("playground/", graph.playground, name="playground"),
]

# /t/<slug>/roles/<role_slug>/...
role_patterns: list[URLPattern | URLResolver] = [
    path("", roles.role_detail, name="role_detail"),
    path("copy", roles.role_copy, name="role_copy"),
    path("archive", roles.role_archive, name="role_archive"),
    path("history/", roles.role_history, name="role_history"),
    path("history/<int:version>/restore", roles.role_restore, name="role_restore"),
]

# /t/<slug>/...
workspace_patterns: list[URLPattern | URLResolver] = [
    path("", workspace.overview, name="tenant_home"),
    path("connect/", workspace.connect, name="connect"),
    path("keys/", keys.keys, name="keys"),
    path("keys/new", keys.key_create, name="key_create"),
    path("keys/<int:key_id>/revoke", keys.key_revoke, name="key_revoke"),
    path("members/", members.members, name="members"),
    path("members/invite", members.invite, name="member_invite"),
    path("members/<int:member_id>/role", members.member_role, name="member_role"),
    path("members/<int:member_id>/remove", members.member_remove, name="member_remove"),
    path(
        "invitations/<int:invitation_id>/revoke",
        members.invitation_revoke,
        name="invitation_revoke",
    ),
    path("audit/", audit.audit_log, name="audit"),
    path("moderation/", moderation.moderation_queue, name="moderation"),
    path("moderation/decide", moderation.moderation_bulk, name="moderation_bulk"),
    path("moderation/policy", moderation.moderation_policy, name="moderation_policy"),
    path(
        "moderation/<int:item_id>/decide",
        moderation.moderation_decide,
        name="moderation_decide",
    ),
    path("memory/", memory.memory_home, name="memory_home"),
    path("memory/<str:network>/", include(network_patterns)),
    path("tasks/", work.tasks_home, name="tasks"),
    path("tasks/<int:task_id>/", work.task_detail, name="task_detail"),
    path("tasks/steps/<int:step_id>/", work.step_detail, name="step_detail"),
    path("trace/<str:kind>/<int:unit_id>/", work.trace_view, name="trace"),
    path("intents/", work.intents_page, name="intents"),
    path("knowledge/", knowledge.knowledge_home, name="knowledge"),
    path("knowledge/jobs/<int:job_id>/", knowledge.knowledge_job, name="knowledge_job"),
    path("knowledge/facts/<int:fact_id>/", knowledge.fact_detail, name="fact_detail"),
    path("knowledge/llm/", knowledge.llm_settings, name="llm_settings"),
    path("knowledge/skills/<int:skill_id>/", knowledge.skill_detail, name="skill_detail"),
    path("knowledge/entities/<int:entity_id>/", knowledge.entity_detail, name="entity_detail"),
    path("knowledge/episodes/<int:episode_id>/", knowledge.episode_detail, name="episode_detail"),
    path("import/", memory.memory_import, name="memory_import"),
    path("import/<int:job_id>/", memory.import_detail, name="import_detail"),
    path("roles/", roles.roles, name="roles"),
    path("roles/new/", roles.role_new, name="role_new"),
    path("roles/check", roles.role_check, name="role_check"),
    path("roles/<slug:role_slug>/", include(role_patterns)),
    path("role-resources/", roles.resources, name="resources"),
    path("role-resources/new/", roles.resource_new, name="resource_new"),
    path("role-resources/<str:kind>/<str:name>/", roles.resource_detail, name="resource_detail"),
    path(
        "role-resources/<str:kind>/<str:name>/delete",
        roles.resource_delete,
        name="resource_delete",
    ),
]

urlpatterns = [
    path("", account.home, name="home"),
    path("signup/", account.signup, name="signup"),
    path("login/", account.MnemoLoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(), name="logout"),
    path("new/", account.workspace_new, name="workspace_new"),
    path("invite/<str:token>/", account.invitation_accept, name="invitation_accept"),
    path("t/<slug:slug>/", include(workspace_patterns)),
    path("staff/moderation/", staff.console, name="staff_console"),
    path("staff/moderation/<slug:slug>/enter", staff.enter, name="staff_enter"),
    path("staff/moderation/<slug:slug>/", staff.queue, name="staff_queue"),
    path("staff/moderation/<slug:slug>/<int:item_id>/decide", staff.decide, name="staff_decide"),
]
