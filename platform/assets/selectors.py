"""Reads of assets, and the one rule for who may see an asset's bytes."""

from django.contrib.contenttypes.models import ContentType
from django.utils import timezone

from accounts.models import Role

from .models import Asset, AssetUpload, IdempotencyKey
from .signals import viewing_asset


def can_view(*, user, asset):
    """Whether ``user`` may see ``asset``: anyone who uploaded it, reviewers and admins,
    and whoever an app that hands the asset out as work lets see it (``viewing_asset``)."""
    if not user.is_authenticated:
        return False
    if user.has_role(Role.REVIEWER):
        return True
    if AssetUpload.objects.filter(asset=asset, uploaded_by=user).exists():
        return True
    return any(allowed is True for _receiver, allowed in viewing_asset.send(sender=Asset, user=user, asset=asset))


def viewable_asset(*, user, asset_id):
    """The asset with ``asset_id`` if ``user`` may see it, else None: an asset you may
    not see and one that does not exist look the same."""
    asset = Asset.objects.filter(pk=asset_id).first()
    if asset is None or not can_view(user=user, asset=asset):
        return None
    return asset


def cleared_assets():
    """Assets a reviewer has cleared: the only ones fit to leave the platform. Pending
    and rejected assets are never among them."""
    return Asset.objects.filter(review_state=Asset.ReviewState.CLEARED)


def made_with_key(*, user, key, model):
    """The ``model`` instance that ``user``'s request with idempotency ``key`` made within
    the key's lifetime, or None: lets a retried upload be answered before its body is read."""
    if not key:
        return None
    record = IdempotencyKey.objects.filter(
        user=user,
        key=key,
        content_type=ContentType.objects.get_for_model(model),
        created_at__gte=timezone.now() - IdempotencyKey.LIFETIME,
        object_id__isnull=False,
    ).first()
    return None if record is None else model._default_manager.filter(pk=record.object_id).first()
