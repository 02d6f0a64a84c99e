"""A class and a function that only fit under a small limit when split."""
import logging

logger = logging.getLogger(__name__)


@register("engine")
class Engine(Base):
    """Runs requests.

    The header of the class: decorators, the class line, this docstring and the
    statements before the first method.
    """

    default_steps = 8
    verbose = False

    def __init__(self, config):
        self.config = config
        self.steps = config.get("steps", self.default_steps)
        self.queue = []

    def add(self, request):
        """Queue a request."""
        if request is None:
            raise ValueError("request is None")
        self.queue.append(request)
        logger.debug("queued %s", request)

    # A class attribute between methods.
    retries = 3

    def step(self):
        finished = []
        for request in self.queue:
            request.advance()
            if request.done:
                finished.append(request)
        for request in finished:
            self.queue.remove(request)
        return finished


def process(batch, options=None):
    """Process a batch of items, one statement after another."""
    options = options or {}
    total = 0
    count = 0
    errors = []
    for item in batch:
        if item is None:
            errors.append("missing item")
            continue
        total += item.weight
        count += 1
    if count:
        average = total / count
    else:
        average = 0.0
    try:
        result = compute(batch, average)
    except ValueError as error:
        errors.append(str(error))
        result = None
    finally:
        logger.info("processed %d items", count)
    summary = {
        "total": total,
        "count": count,
        "average": average,
        "errors": errors,
        "result": result,
    }
    logger.debug("summary: %s", summary)
    return summary
