from __future__ import annotations

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from gateway.rest import views
from gateway.rest.errors import api_not_found

urlpatterns = [
    path("tenant", views.WhoAmIView.as_view(), name="api-tenant"),
    path("keys", views.KeyListCreateView.as_view(), name="api-keys"),
    path("keys/<int:key_id>", views.KeyDetailView.as_view(), name="api-key"),
    path("audit", views.AuditListView.as_view(), name="api-audit"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^.*$", api_not_found),  # JSON 404 for unknown API paths, even with DEBUG on
]
