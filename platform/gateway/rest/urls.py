from __future__ import annotations

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from gateway.rest import account as views
from gateway.rest import memory as memory_api
from gateway.rest import roles as roles_api
from gateway.rest.errors import api_not_found

urlpatterns = [
    path("tenant", views.WhoAmIView.as_view(), name="api-tenant"),
    path("keys", views.KeyListCreateView.as_view(), name="api-keys"),
    path("keys/<int:key_id>", views.KeyDetailView.as_view(), name="api-key"),
    path("audit", views.AuditListView.as_view(), name="api-audit"),
    path("remember", memory_api.RememberView.as_view(), name="api-remember"),
    path("recall", memory_api.RecallView.as_view(), name="api-recall"),
    path("prime", memory_api.PrimeView.as_view(), name="api-prime"),
    path("networks/", memory_api.NetworkListView.as_view(), name="api-networks"),
    path("networks/<str:key>", memory_api.NetworkDetailView.as_view(), name="api-network"),
    path("engrams", memory_api.EngramListView.as_view(), name="api-engrams"),
    path("engrams/<int:engram_id>", memory_api.EngramDetailView.as_view(), name="api-engram"),
    path(
        "engrams/<int:engram_id>/history",
        memory_api.EngramHistoryView.as_view(),
        name="api-engram-history",
    ),
    path("roles", roles_api.RoleListView.as_view(), name="api-roles"),
    path("roles/<slug:slug>", roles_api.RoleDetailView.as_view(), name="api-role"),
    path("roles/<slug:slug>/render", roles_api.RoleRenderView.as_view(), name="api-role-render"),
    path(
        "roles/<slug:slug>/activate",
        roles_api.RoleActivateView.as_view(),
        name="api-role-activate",
    ),
    path("roles/<slug:slug>/copy", roles_api.RoleCopyView.as_view(), name="api-role-copy"),
    path(
        "roles/<slug:slug>/versions",
        roles_api.RoleVersionsView.as_view(),
        name="api-role-versions",
    ),
    path(
        "roles/<slug:slug>/versions/<int:version>/restore",
        roles_api.RoleRestoreView.as_view(),
        name="api-role-restore",
    ),
    path("dpml/validate", roles_api.DpmlValidateView.as_view(), name="api-dpml-validate"),
    path("role-resources", roles_api.ResourceListView.as_view(), name="api-resources"),
    path(
        "role-resources/<str:kind>/<str:name>",
        roles_api.ResourceDetailView.as_view(),
        name="api-resource",
    ),
    path(
        "role-resources/<str:kind>/<str:name>/versions",
        roles_api.ResourceVersionsView.as_view(),
        name="api-resource-versions",
    ),
    path(
        "role-resources/<str:kind>/<str:name>/versions/<int:version>/restore",
        roles_api.ResourceRestoreView.as_view(),
        name="api-resource-restore",
    ),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^.*$", api_not_found),  # JSON 404 for unknown API paths, even with DEBUG on
]
