from celery import shared_task

from . import build


@shared_task(name="releases.tasks.build_release")
def build_release(release_id, attempt):
    """Builds and publishes one attempt of a release; a stale or repeated attempt does nothing."""
    return build.run_build(release_id=release_id, attempt=attempt)


@shared_task(name="releases.tasks.check_rebuild")
def check_rebuild(release_id):
    """Rebuilds a published release and compares every file's checksum."""
    return build.check_rebuild(release_id=release_id)


@shared_task(name="releases.tasks.run_evaluation")
def run_evaluation(evaluation_id):
    """Scores one queued evaluation; a finished or unknown one is left alone."""
    from . import services

    return services.run_evaluation(evaluation_id=evaluation_id)
