"""Reads of assets, and the one rule for who may see an asset's bytes."""

from accounts.models import Role

from .models import Asset, AssetUpload

# Further reasons to let a user see an asset, added by the apps that hand assets out as
# work (e.g. the screens of a trace to the rater writing questions on it).
_view_rules = []


def add_view_rule(rule):
    """``rule(user=…, asset=…) -> bool``; any rule saying yes lets the user see it."""
    if rule not in _view_rules:
        _view_rules.append(rule)


def can_view(*, user, asset):
    """Whether ``user`` may see ``asset``: anyone who uploaded it, reviewers and admins,
    and whoever a registered view rule lets see it."""
    if not user.is_authenticated:
        return False
    if user.has_role(Role.REVIEWER):
        return True
    if AssetUpload.objects.filter(asset=asset, uploaded_by=user).exists():
        return True
    return any(rule(user=user, asset=asset) for rule in _view_rules)


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
