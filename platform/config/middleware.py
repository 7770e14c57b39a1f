"""Refuses requests whose query string carries a NUL character: no text the platform
looks up may hold one (PostgreSQL refuses it outright), so such a request is malformed
and gets a 400 instead of reaching a view that would fail. (Bodies are the views' to
check: reading one here would spool an upload before its size is checked.)"""

from django.http import HttpResponseBadRequest, JsonResponse


class RejectNulCharacters:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in query or "%00" in query:
            return self._refuse(request)
        return self.get_response(request)

    def _refuse(self, request):
        message = "The request holds a NUL character, which no field may contain."
        if request.path.startswith("/api/"):
            return JsonResponse({"error": {"code": "invalid", "message": message, "fields": {}}}, status=400)
        return HttpResponseBadRequest(message)
