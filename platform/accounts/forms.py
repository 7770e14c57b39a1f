from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import User


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=False)
    locale = forms.CharField(max_length=16, initial="en-US", help_text="Your language and region, e.g. en-US or de-DE.")

    class Meta:
        model = User
        fields = ("username", "email")


class ProfileForm(forms.Form):
    locale = forms.CharField(max_length=16)


class NewTokenForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="Where you will use it, e.g. “Chrome extension”.")
