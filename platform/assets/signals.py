"""What happens to an asset, for the apps that keep records pointing at assets.

Sent by the app that makes it happen (``assets`` itself for a new asset, ``moderation``
for review decisions); received by any app above, connected in its ``AppConfig.ready``.
Each is sent inside the transaction that made the change (when there is one), so a
receiver's writes commit or roll back with it.
"""

from django.dispatch import Signal

# A new image was stored (not one that was there already): ``asset``, ``source_url``
# (the page it shows or came from, when known). Receivers that start jobs start them
# with ``transaction.on_commit``: the caller's transaction may still be open.
asset_stored = Signal()

# A reviewer cleared ``asset`` as it is.
asset_cleared = Signal()

# A reviewer took back their approval of ``asset``: it waits for review again, and whatever
# an app keeps for cleared assets only (a site's graph) must drop it.
asset_uncleared = Signal()

# A redacted copy ``replacement`` takes the place of ``original`` everywhere.
asset_redacted = Signal()

# ``asset`` was rejected in review, for ``reason`` (its bytes are being purged).
asset_rejected = Signal()

# Asked by ``assets.selectors.can_view`` for a ``user`` who neither uploaded ``asset`` nor
# reviews: a receiver returns True when its app hands that asset to that user as work.
viewing_asset = Signal()
