from django.dispatch import Signal

# Candidates (QA pairs now pending validation) that assessors should check: a site's
# sample, or the rest of a site whose sample fell short. Sent with ``qa_pairs``.
review_wanted = Signal()
