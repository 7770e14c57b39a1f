import hashlib

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models import Q


class Role(models.TextChoices):
    """What a user may do. Each role can do everything the roles before it can."""

    RATER = "rater", "Rater"
    VALIDATOR = "validator", "Validator"
    REVIEWER = "reviewer", "Reviewer"
    ADMIN = "admin", "Admin"


ROLE_RANK = {role: rank for rank, role in enumerate(Role.values)}


class User(AbstractUser):
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.RATER)

    def has_role(self, role):
        """True when this user's role is ``role`` or one above it."""
        if self.is_superuser:
            return True
        return ROLE_RANK[self.role] >= ROLE_RANK[role]

    @property
    def is_admin(self):
        return self.has_role(Role.ADMIN)

    def save(self, *args, **kwargs):
        # Admins manage everything in the Django admin; nobody else gets into it by role:
        # an admin moved to another role loses the admin's rights with it. (A superuser
        # made by ``createsuperuser`` without the admin role keeps them.)
        if self.role == Role.ADMIN:
            self.is_staff = True
            self.is_superuser = True
        elif self.pk is not None and self._leaving_admin(kwargs.get("update_fields")):
            self.is_staff = False
            self.is_superuser = False
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "is_staff", "is_superuser"}
        super().save(*args, **kwargs)

    def _leaving_admin(self, update_fields):
        """Whether this save moves the user off the admin role."""
        if update_fields is not None and "role" not in update_fields:
            return False
        before = type(self).objects.filter(pk=self.pk).values_list("role", flat=True).first()
        return before == Role.ADMIN

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(role__in=Role.values), name="user_role_known")]


class RaterProfile(models.Model):
    """A worker's standing: where they are, how their work has been judged, and blocks."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="profile")
    locale = models.CharField(max_length=16, default="en-US", help_text="BCP 47 tag, e.g. en-US.")
    approved_count = models.PositiveIntegerField(default=0)
    rejected_count = models.PositiveIntegerField(default=0)
    blocked = models.BooleanField(default=False)
    blocked_reason = models.TextField(blank=True)
    blocked_at = models.DateTimeField(null=True, blank=True)
    questions_seen_at = models.DateTimeField(
        null=True, blank=True, help_text="When the worker last looked at their questions' outcomes."
    )
    screened_by_provider = models.CharField(
        max_length=20, blank=True,
        help_text="The recruitment provider (prolific, mturk) that checks this worker's approval rate, approved "
        "count and locale before sending them; empty for the platform's own raters.",
    )  # fmt: skip

    @property
    def approval_rate(self):
        """Share of judged assignments that were approved; None before any judgement."""
        judged = self.approved_count + self.rejected_count
        return None if judged == 0 else self.approved_count / judged

    def __str__(self):
        return f"profile of {self.user}"

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(blocked=False) | ~Q(blocked_reason=""), name="profile_block_has_reason")
        ]


class Qualification(models.Model):
    """A named skill a worker has shown, e.g. by passing a qualification test."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)

    def __str__(self):
        return self.name


class QualificationGrant(models.Model):
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="qualification_grants")
    qualification = models.ForeignKey(Qualification, on_delete=models.CASCADE, related_name="grants")
    granted_at = models.DateTimeField(auto_now_add=True)
    granted_by = models.ForeignKey(User, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    note = models.CharField(max_length=200, blank=True)

    def __str__(self):
        return f"{self.qualification} for {self.user}"

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "qualification"], name="one_grant_per_qualification")]


def digest_token(key):
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A named API key. Only its SHA-256 digest is stored; the key is shown once."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=80)
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8, help_text="First characters of the key, to tell keys apart.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    @property
    def is_active(self):
        return self.revoked_at is None

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    class Meta:
        ordering = ["-created_at"]


def _create_profile(sender, instance, created, raw=False, **kwargs):
    # Every user is a potential worker, however they were made (sign-up, admin, shell).
    if created and not raw:
        RaterProfile.objects.get_or_create(user=instance)


models.signals.post_save.connect(_create_profile, sender=User, dispatch_uid="accounts-create-profile")
