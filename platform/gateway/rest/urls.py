from __future__ import annotations

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from gateway.rest import views
from gateway.rest.errors import api_not_found
from memory import api as memory_api

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
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^.*$", api_not_found),  # JSON 404 for unknown API paths, even with DEBUG on
]
