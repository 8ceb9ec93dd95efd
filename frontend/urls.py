from __future__ import annotations

from django.contrib.auth.views import LogoutView
from django.urls import path

from frontend.views import account, audit, keys, members, roles, workspace

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
