"""Exceptions of the nsdyn package. Their text is the message the command
line prints for the same problem (file:line:col where there is one)."""


class NsdynError(Exception):
    """Any error reported by the engine. `messages` lists every message
    (a refused config reports all its problems at once)."""

    def __init__(self, messages):
        if isinstance(messages, str):
            messages = [messages]
        self.messages = list(messages)
        super().__init__("\n".join(self.messages))


class ConfigError(NsdynError):
    """The config, an override or a parameter value was refused."""


class NotFoundError(NsdynError, KeyError):
    """No such channel, parameter or state."""

    def __str__(self):  # KeyError would quote the message
        return "\n".join(self.messages)


class RunFailed(NsdynError):
    """The run failed: `result` holds the data computed so far, with
    result.incomplete True."""

    def __init__(self, messages, result):
        super().__init__(messages)
        self.result = result


class Interrupted(RunFailed, KeyboardInterrupt):
    """The run was stopped (Ctrl-C, or Data.request_stop from another
    thread); `result` holds the data so far, marked incomplete."""
