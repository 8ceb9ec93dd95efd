"""REST URLs under /api/v1/. A path with a trailing slash added or left out reaches the same
endpoint (see errors.api_not_found); unknown paths answer a JSON 404."""

from __future__ import annotations

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from gateway.rest import account, knowledge, memory, moderation, roles, work
from gateway.rest.errors import api_not_found

ROLE = "roles/<slug:slug>"
RESOURCE = "role-resources/<str:kind>/<str:name>"

urlpatterns = [
    path("tenant", account.WhoAmIView.as_view(), name="api-tenant"),
    path("keys", account.KeyListCreateView.as_view(), name="api-keys"),
    path("keys/<int:key_id>", account.KeyDetailView.as_view(), name="api-key"),
    path("audit", account.AuditListView.as_view(), name="api-audit"),
    path("remember", memory.RememberView.as_view(), name="api-remember"),
    path("recall", memory.RecallView.as_view(), name="api-recall"),
    path("prime", memory.PrimeView.as_view(), name="api-prime"),
    path("networks/", memory.NetworkListView.as_view(), name="api-networks"),
    path("networks/<str:key>", memory.NetworkDetailView.as_view(), name="api-network"),
    path("engrams", memory.EngramListView.as_view(), name="api-engrams"),
    path("engrams/<int:engram_id>", memory.EngramDetailView.as_view(), name="api-engram"),
    path(
        "engrams/<int:engram_id>/history",
        memory.EngramHistoryView.as_view(),
        name="api-engram-history",
    ),
    path("episodes", knowledge.EpisodesView.as_view(), name="api-episodes"),
    path("guide", knowledge.GuideView.as_view(), name="api-guide"),
    path("jobs/<int:job_id>", knowledge.JobView.as_view(), name="api-job"),
    path("facts", knowledge.FactListView.as_view(), name="api-facts"),
    path("llm", knowledge.LlmView.as_view(), name="api-llm"),
    path("llm/usage", knowledge.LlmUsageView.as_view(), name="api-llm-usage"),
    path("facts/<int:fact_id>", knowledge.FactDetailView.as_view(), name="api-fact"),
    path("skills", knowledge.SkillListView.as_view(), name="api-skills"),
    path("skills/<int:skill_id>", knowledge.SkillDetailView.as_view(), name="api-skill"),
    path(
        "skills/<int:skill_id>/outcome",
        knowledge.SkillOutcomeView.as_view(),
        name="api-skill-outcome",
    ),
    path("tasks", work.TaskListView.as_view(), name="api-tasks"),
    path("tasks/<int:task_id>", work.TaskDetailView.as_view(), name="api-task"),
    path("tasks/<int:task_id>/steps", work.TaskStepsView.as_view(), name="api-task-steps"),
    path("intents", work.IntentListView.as_view(), name="api-intents"),
    path("intents/<str:intent>", work.IntentDetailView.as_view(), name="api-intent"),
    path("trace/<str:unit_kind>/<int:unit_id>", work.TraceView.as_view(), name="api-trace"),
    path("entities", knowledge.EntityListView.as_view(), name="api-entities"),
    path("entities/<int:entity_id>", knowledge.EntityDetailView.as_view(), name="api-entity"),
    path(
        "entities/<int:entity_id>/merge",
        knowledge.EntityMergeView.as_view(),
        name="api-entity-merge",
    ),
    path(
        "entities/<int:entity_id>/split",
        knowledge.EntitySplitView.as_view(),
        name="api-entity-split",
    ),
    path("moderation", moderation.ModerationListView.as_view(), name="api-moderation"),
    path(
        "moderation/policy",
        moderation.ModerationPolicyView.as_view(),
        name="api-moderation-policy",
    ),
    path(
        "moderation/decide",
        moderation.ModerationBulkDecideView.as_view(),
        name="api-moderation-bulk",
    ),
    path(
        "moderation/<int:item_id>/decide",
        moderation.ModerationDecideView.as_view(),
        name="api-moderation-decide",
    ),
    path("engrams/<int:engram_id>/flag", moderation.EngramFlagView.as_view(), name="api-flag"),
    path(
        "engrams/<int:engram_id>/restore",
        moderation.EngramRestoreView.as_view(),
        name="api-restore",
    ),
    path("erasure", moderation.ErasureView.as_view(), name="api-erasure"),
    path("erasure/verify", moderation.ErasureVerifyView.as_view(), name="api-erasure-verify"),
    path(
        "erasure/<int:erasure_id>", moderation.ErasureDetailView.as_view(), name="api-erasure-one"
    ),
    path("roles", roles.RoleListView.as_view(), name="api-roles"),
    path(ROLE, roles.RoleDetailView.as_view(), name="api-role"),
    path(f"{ROLE}/render", roles.RoleRenderView.as_view(), name="api-role-render"),
    path(f"{ROLE}/activate", roles.RoleActivateView.as_view(), name="api-role-activate"),
    path(f"{ROLE}/copy", roles.RoleCopyView.as_view(), name="api-role-copy"),
    path(f"{ROLE}/versions", roles.RoleVersionsView.as_view(), name="api-role-versions"),
    path(
        f"{ROLE}/versions/<int:version>/restore",
        roles.RoleRestoreView.as_view(),
        name="api-role-restore",
    ),
    path("dpml/validate", roles.DpmlValidateView.as_view(), name="api-dpml-validate"),
    path("role-resources", roles.ResourceListView.as_view(), name="api-resources"),
    path(RESOURCE, roles.ResourceDetailView.as_view(), name="api-resource"),
    path(
        f"{RESOURCE}/versions", roles.ResourceVersionsView.as_view(), name="api-resource-versions"
    ),
    path(
        f"{RESOURCE}/versions/<int:version>/restore",
        roles.ResourceRestoreView.as_view(),
        name="api-resource-restore",
    ),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # the split view serves its start-up script as a file: no inline script under the CSP
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^.*$", api_not_found),  # JSON 404 for unknown API paths, even with DEBUG on
]
