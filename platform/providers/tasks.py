from celery import shared_task

from . import services


@shared_task(name="providers.send_call")
def send_call(call_id):
    call = services.send_call(call_id=call_id)
    return {"call": call_id, "state": call.state if call else "already sent"}
