from django.apps import AppConfig


class CorpusConfig(AppConfig):
    """The dataset's own records: catalogue, screens, traces, pools, QA pairs, evidence."""

    name = "corpus"

    def ready(self):
        from assets.signals import asset_cleared, asset_redacted, asset_rejected, asset_uncleared, viewing_asset

        from . import selectors, services

        asset_redacted.connect(services.follow_redaction, dispatch_uid="corpus.follow_redaction")
        asset_rejected.connect(services.reject_pairs_citing, dispatch_uid="corpus.reject_pairs_citing")
        for signal in (asset_cleared, asset_uncleared, asset_redacted, asset_rejected):
            signal.connect(services.regraph_sites_showing, dispatch_uid=f"corpus.regraph.{id(signal)}")
        viewing_asset.connect(selectors.trace_screen_for_its_writer, dispatch_uid="corpus.trace_screen")
        viewing_asset.connect(selectors.site_page_for_its_writer, dispatch_uid="corpus.site_page")
        viewing_asset.connect(selectors.pool_image_for_workers, dispatch_uid="corpus.pool_image")
