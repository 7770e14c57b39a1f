from rest_framework import serializers

from corpus.models import Site

from .models import GeneratedPage, GenerationRun, SiteSample


class SiteSampleSerializer(serializers.ModelSerializer):
    site = serializers.CharField(source="site.host")
    acceptance = serializers.FloatField(allow_null=True, help_text="Accepted share of the decided sample.")

    class Meta:
        model = SiteSample
        fields = ["site", "candidates", "size", "accepted", "rejected", "acceptance", "state", "decided_at"]
        read_only_fields = fields


class GenerationRunSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    sites = serializers.SerializerMethodField()
    samples = SiteSampleSerializer(many=True, read_only=True)
    failed_pages = serializers.SerializerMethodField(help_text="Pages the generator failed on, with the reason.")

    def get_url(self, run) -> str:
        return f"/api/v1/generation-runs/{run.pk}/"

    def get_sites(self, run) -> list[str]:
        return [site.host for site in run.sites.all()]

    def get_failed_pages(self, run) -> list[dict]:
        failed = run.pages.filter(state=GeneratedPage.State.FAILED).order_by("id")[:50]
        return [{"url": page.url, "reason": page.reason} for page in failed]

    class Meta:
        model = GenerationRun
        fields = [
            "id", "url", "generator", "parameters", "generator_version", "prompt_version", "prompt", "sites",
            "sample_size", "threshold", "state", "total", "processed", "skipped", "candidates", "failures",
            "samples", "failed_pages", "message", "created_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields


class StartGenerationSerializer(serializers.Serializer):
    generator = serializers.CharField(max_length=40, default="rules", help_text="rules or openai-compatible.")
    parameters = serializers.DictField(required=False, default=dict, help_text="The generator's parameters.")
    sites = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**31 - 1), required=False, default=list,
        max_length=1000, help_text="Site ids; none for every active site.",
    )  # fmt: skip
    sample_size = serializers.IntegerField(min_value=1, max_value=100000, default=100)
    threshold = serializers.FloatField(min_value=0, max_value=1, default=0.8)
    chunk_size = serializers.IntegerField(min_value=1, max_value=1000, default=20)

    def validate_sites(self, ids):
        found = set(Site.objects.filter(pk__in=ids).values_list("pk", flat=True))
        unknown = sorted(set(ids) - found)
        if unknown:
            raise serializers.ValidationError(f"There is no site {unknown[0]}.")
        return ids
