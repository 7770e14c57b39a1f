import unicodedata

from rest_framework import serializers

from .models import ApiToken, User


class MeSerializer(serializers.ModelSerializer):
    locale = serializers.CharField(source="profile.locale", read_only=True)
    approved_count = serializers.IntegerField(source="profile.approved_count", read_only=True)
    rejected_count = serializers.IntegerField(source="profile.rejected_count", read_only=True)
    approval_rate = serializers.FloatField(source="profile.approval_rate", read_only=True, allow_null=True)
    blocked = serializers.BooleanField(source="profile.blocked", read_only=True)
    qualifications = serializers.SerializerMethodField()

    def get_qualifications(self, user) -> list[str]:
        return [grant.qualification.slug for grant in user.qualification_grants.select_related("qualification")]

    class Meta:
        model = User
        fields = [
            "id",
            "username",
            "email",
            "role",
            "locale",
            "approved_count",
            "rejected_count",
            "approval_rate",
            "blocked",
            "qualifications",
        ]


class TokenNameField(serializers.CharField):
    """A name given as text: DRF's ``CharField`` takes numbers too (0 would be "0")."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class ApiTokenSerializer(serializers.ModelSerializer):
    name = TokenNameField(max_length=80, help_text="Where you use the token, e.g. “Chrome extension”.")

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = ["prefix", "created_at", "last_used_at", "revoked_at"]

    def validate_name(self, name):
        # The name tells its owner which token to revoke: words, on one line.
        if not any(character.isalpha() for character in name):
            raise serializers.ValidationError("Name the token after where you use it, e.g. “Chrome extension”.")
        if any(unicodedata.category(character) in ("Cc", "Zl", "Zp") for character in name):
            raise serializers.ValidationError("A token's name is one line of text, without control characters.")
        return name


class NewApiTokenSerializer(ApiTokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown once; store it now.")

    class Meta(ApiTokenSerializer.Meta):
        fields = ApiTokenSerializer.Meta.fields + ["key"]
