"""Who may use Mnemo: users, tenants, memberships, invitations and API keys."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: object) -> User:
        if not email:
            raise ValueError("email is required")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra: object) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self.create_user(email, password, **extra)


class User(AbstractBaseUser, PermissionsMixin):
    """A person who logs in to the dashboard; belongs to tenants through memberships."""

    email = models.EmailField(unique=True)
    name = models.CharField(max_length=150, blank=True)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False)
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS = []  # createsuperuser asks only for the email

    def __str__(self) -> str:
        return self.email

    @property
    def display_name(self) -> str:
        return self.name or self.email


class Tenant(models.Model):
    """A team or company: the unit of isolation for every memory, key and audit event."""

    class Plan(models.TextChoices):
        FREE = "free", "Free"
        TEAM = "team", "Team"
        ENTERPRISE = "enterprise", "Enterprise"

    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=120)
    plan = models.CharField(max_length=20, choices=Plan.choices, default=Plan.FREE)
    settings = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.slug

    @property
    def mcp_url(self) -> str:
        """Where this tenant's agents connect over MCP."""
        from django.conf import settings

        return f"{settings.PUBLIC_URL}/t/{self.slug}/mcp"


class Membership(models.Model):
    """A user's role in one tenant."""

    class Role(models.TextChoices):
        OWNER = "owner", "Owner"
        ADMIN = "admin", "Admin"
        MODERATOR = "moderator", "Moderator"
        MEMBER = "member", "Member"
        VIEWER = "viewer", "Viewer"

    tenant = models.ForeignKey(Tenant, on_delete=models.PROTECT, related_name="memberships")
    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="memberships", db_index=False
    )
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "user"], name="membership_tenant_user_uniq"),
        ]
        indexes = [
            # The tenant switcher lists a user's tenants before any tenant is chosen.
            models.Index(fields=["user", "tenant"], name="membership_user_lookup"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.tenant_id}:{self.role}"


class Invitation(models.Model):
    """An emailed invitation to join a tenant with a role; the token is stored as a digest."""

    tenant = models.ForeignKey(Tenant, on_delete=models.PROTECT, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=20, choices=Membership.Role.choices)
    token_digest = models.CharField(max_length=64)
    invited_by_id = models.BigIntegerField(null=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "token_digest"], name="invitation_tenant_token_uniq"
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "-created_at"], name="invitation_tenant_recent"),
            # Accepting a link finds the invitation before its tenant is known.
            models.Index(fields=["token_digest"], name="invitation_token_lookup"),
        ]

    def __str__(self) -> str:
        return f"{self.email} ({self.role})"

    @property
    def is_pending(self) -> bool:
        return (
            self.accepted_at is None
            and self.revoked_at is None
            and self.expires_at > timezone.now()
        )


class ApiKey(models.Model):
    """A bearer credential for agents: ``mnemo_<prefix>_<secret>``, stored as prefix + HMAC."""

    class Scope(models.TextChoices):
        READ = "read", "Read"
        WRITE = "write", "Write"
        ADMIN = "admin", "Admin"

    tenant = models.ForeignKey(Tenant, on_delete=models.PROTECT, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64)
    scopes = ArrayField(models.CharField(max_length=10, choices=Scope.choices), default=list)
    # blank: the tenant's (memory.models.WritePolicy: auto, review, quarantine)
    write_policy = models.CharField(max_length=12, blank=True, default="", db_default="")
    created_by_id = models.BigIntegerField(null=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "prefix"], name="apikey_tenant_prefix_uniq"),
        ]
        indexes = [
            models.Index(fields=["tenant", "-created_at"], name="apikey_tenant_recent"),
            # Bearer authentication finds the key before its tenant is known.
            models.Index(fields=["prefix"], name="apikey_prefix_lookup"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix})"

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    @property
    def status(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= timezone.now():
            return "expired"
        return "active"
