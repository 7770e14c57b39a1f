app_name = "training"

urlpatterns = []
