"""Sign up, log in and out, create a workspace, accept an invitation."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods

from base.errors import MnemoError
from frontend.forms import LoginForm, SignupForm, WorkspaceForm
from tenants import services
from tenants.access import invitation_for_token
from tenants.models import User
from tenants.requests import UserRequest
from tenants.selectors import memberships_for_user


class MnemoLoginView(LoginView):
    template_name = "frontend/login.html"
    authentication_form = LoginForm
    redirect_authenticated_user = True


def home(request: HttpRequest) -> HttpResponse:
    """Logged in: the last workspace used (or the first); otherwise the landing page."""
    if not request.user.is_authenticated:
        return render(request, "frontend/landing.html")
    memberships = list(memberships_for_user(user=request.user))
    if not memberships:
        return redirect("workspace_new")
    last = request.session.get("last_tenant")
    slugs = [m.tenant.slug for m in memberships]
    return redirect("tenant_home", slug=last if last in slugs else slugs[0])


def _invite_path(raw: str | None) -> str:
    """``next`` if it is one of our invitation pages, else "" (never an open redirect)."""
    raw = raw or ""
    return raw if raw.startswith("/invite/") and "//" not in raw and "\\" not in raw else ""


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account and workspace; through an invitation, only the account (then join)."""
    if request.user.is_authenticated:
        return redirect("home")
    invite = _invite_path(request.POST.get("next") or request.GET.get("next"))
    form = SignupForm(
        request.POST or None, initial={"email": request.GET.get("email", "")}, invited=bool(invite)
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            if invite:
                user = services.user_create(
                    email=data["email"], password=data["password"], name=data["name"]
                )
            else:
                user, tenant = services.user_signup(
                    email=data["email"],
                    password=data["password"],
                    name=data["name"],
                    tenant_name=data["workspace"],
                )
        except MnemoError as exc:
            _attach(form, exc, name="workspace")
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            if invite:
                return _join(request, user, invite)
            messages.success(request, f"Welcome to Mnemo. {tenant.name} is ready.")
            return redirect("keys", slug=tenant.slug)
    return render(request, "frontend/signup.html", {"form": form, "next": invite})


def _join(request: HttpRequest, user: User, invite: str) -> HttpResponse:
    """Signing up from an invitation accepts it: the new account joins at once (else, a wrong
    address or a spent link, the invitation page says why)."""
    token = invite.removeprefix("/invite/").strip("/")
    invitation = invitation_for_token(token=token, user=user)
    if (
        invitation is None
        or not invitation.is_pending
        or invitation.email.lower() != user.email.lower()
    ):
        return redirect(invite)
    try:
        services.invitation_accept(invitation=invitation, token=token, user=user)
    except MnemoError as exc:
        messages.error(request, exc.message)
        return redirect(invite)
    messages.success(request, f"Welcome to Mnemo. You joined {invitation.tenant.name}.")
    return redirect("tenant_home", slug=invitation.tenant.slug)


@login_required
@require_http_methods(["GET", "POST"])
def workspace_new(request: UserRequest) -> HttpResponse:
    form = WorkspaceForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            tenant = services.tenant_create(
                name=form.cleaned_data["name"], slug=form.cleaned_data["slug"], owner=request.user
            )
        except MnemoError as exc:
            _attach(form, exc)
        else:
            messages.success(request, f"Workspace {tenant.name} created.")
            return redirect("tenant_home", slug=tenant.slug)
    return render(request, "frontend/workspace_new.html", {"form": form})


@require_http_methods(["GET", "POST"])
def invitation_accept(request: HttpRequest, token: str) -> HttpResponse:
    user = request.user if request.user.is_authenticated else None
    invitation = invitation_for_token(token=token, user=user)
    context: dict[str, object] = {"invitation": invitation, "token": token}
    if invitation is None or not invitation.is_pending:
        return render(request, "frontend/invitation.html", {**context, "invalid": True}, status=404)
    if request.method == "POST" and request.user.is_authenticated:
        try:
            services.invitation_accept(invitation=invitation, token=token, user=request.user)
        except MnemoError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, f"You joined {invitation.tenant.name}.")
            return redirect("tenant_home", slug=invitation.tenant.slug)
    context["login_url"] = reverse("login") + "?" + urlencode({"next": request.path})
    context["signup_url"] = (
        reverse("signup") + "?" + urlencode({"next": request.path, "email": invitation.email})
    )
    if user is not None:
        context["wrong_account"] = user.email != invitation.email
        context["already_member"] = invitation.tenant.memberships.filter(user=user).exists()
    return render(request, "frontend/invitation.html", context)


def _attach(form: SignupForm | WorkspaceForm, error: MnemoError, **rename: str) -> None:
    """Put a service error on the form field it names (``rename`` maps service to form names)."""
    placed = False
    for field, message in error.fields.items():
        target = rename.get(field, field)
        if target in form.fields:
            form.add_error(target, error.message if message == "taken" else message)
            placed = True
    if not placed:
        form.add_error(None, error.message)
