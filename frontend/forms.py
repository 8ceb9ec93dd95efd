"""Dashboard forms. They only shape input; services validate and decide."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.utils import timezone

from tenants import ratelimit
from tenants.models import ApiKey, Membership


class LoginForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "Wrong email or password.",
    }
    username = forms.EmailField(
        label="Email", widget=forms.EmailInput(attrs={"autofocus": True, "autocomplete": "email"})
    )

    def clean_username(self) -> str:
        return str(self.cleaned_data["username"]).strip().lower()

    def clean(self) -> dict[str, Any]:
        """Count the attempt, refuse when over budget (brute force), else authenticate."""
        email = self.cleaned_data.get("username")
        ip = self.request.META.get("REMOTE_ADDR") if self.request is not None else None
        if email:
            decision = ratelimit.login_attempt(email=email, ip=ip)
            if not decision.allowed:
                minutes = max(1, decision.retry_after // 60)
                raise forms.ValidationError(
                    f"Too many attempts; try again in {minutes} min.", code="throttled"
                )
        cleaned = super().clean()
        if email:
            ratelimit.login_succeeded(email=email, ip=ip)
        return cleaned


class SignupForm(forms.Form):
    name = forms.CharField(label="Your name", max_length=150, required=False)
    email = forms.EmailField(widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password = forms.CharField(
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text="At least 10 characters, not a common password.",
    )
    workspace = forms.CharField(
        label="Workspace name",
        max_length=120,
        required=False,
        help_text="Your team or company. You can create more later.",
    )

    def __init__(self, *args: Any, invited: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if invited:  # joining through an invitation: no workspace of one's own yet
            del self.fields["workspace"]
            if self.initial.get("email"):  # the address the invitation was sent to
                self.fields["email"].widget.attrs["readonly"] = True


class WorkspaceForm(forms.Form):
    name = forms.CharField(label="Workspace name", max_length=120)
    slug = forms.CharField(  # validated by the service, which explains what is wrong
        label="URL name",
        max_length=60,
        required=False,
        help_text="Lowercase letters, digits and dashes; leave empty to derive it from the name.",
    )


class ApiKeyForm(forms.Form):
    name = forms.CharField(
        max_length=100, widget=forms.TextInput(attrs={"placeholder": "my-agent"})
    )
    scopes = forms.MultipleChoiceField(
        choices=ApiKey.Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[ApiKey.Scope.READ, ApiKey.Scope.WRITE],
    )
    expires_on = forms.DateField(
        label="Expires on",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="Optional. The key stops working at the start of this day (UTC).",
    )

    def clean_expires_on(self) -> date | None:
        day = self.cleaned_data.get("expires_on")
        if day is not None and day <= timezone.now().date():
            raise forms.ValidationError("Choose a day after today.")
        return day

    def expires_at(self) -> datetime | None:
        day = self.cleaned_data.get("expires_on")
        if day is None:
            return None
        return datetime.combine(day, time.min, tzinfo=UTC)


class InviteForm(forms.Form):
    email = forms.EmailField(
        widget=forms.EmailInput(attrs={"placeholder": "colleague@example.com"})
    )
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.MEMBER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Membership.Role.choices)


class AuditFilterForm(forms.Form):
    actor = forms.CharField(required=False)
    verb = forms.CharField(required=False)
    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    cursor = forms.CharField(required=False)

    def filters(self) -> dict[str, Any]:
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "actor": data.get("actor") or "",
            "verb": data.get("verb") or "",
            "since": data.get("since"),
            "until": data.get("until"),
        }
