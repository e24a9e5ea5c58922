"""The exceptions the core raises; surfaces turn them into messages and exit codes."""


class TotalRecallError(Exception):
    """Base of every error Total Recall raises on purpose."""


class ConfigError(TotalRecallError):
    """A setting (an environment variable, a root override) is wrong."""


class SandboxError(ConfigError):
    """TOTAL_RECALL_SANDBOX is armed and a store root did not come from its override."""


class SourceError(TotalRecallError):
    """A harness payload could not be resolved or read; the message names the path."""


class AddressError(TotalRecallError):
    """An address is malformed or names nothing the record holds."""


class AppendOnlyError(TotalRecallError):
    """Something tried to change or delete what the record already holds."""


class RecordError(TotalRecallError):
    """The record database is unusable (corrupt, locked, or from a newer version)."""


class RecordBusy(RecordError):
    """Another process held the record's lock longer than the caller would wait (a hook's bound)."""


class SearchError(TotalRecallError):
    """A query that cannot be searched (empty, or nothing searchable in it)."""


class VectorsUnavailable(TotalRecallError):
    """The optional vectors extra is not installed (pip install 'total-recall[vectors]')."""


class PriceInputError(TotalRecallError):
    """An input of the cache-price rule is out of range (a negative count, a probability above 1)."""


class WindowError(TotalRecallError):
    """A window cannot be built: a bad limit, or the next call cannot fit after all that may leave left."""


class HookInputError(TotalRecallError):
    """A harness hook sent something that is not the hook JSON it documents."""


class LLMNotConfigured(ConfigError):
    """No usable LLM endpoint or key is configured; the message names what to set."""


class LLMError(TotalRecallError):
    """An LLM call failed; the message names the status, the attempts and the endpoint, never the key."""


class LLMBudgetExceeded(TotalRecallError):
    """A call would pass the per-call or per-day token cap; the message names the cap and its variable."""


class SummaryCacheError(TotalRecallError):
    """The summary cache refused a request (a from-address off the chain, nothing to delete, nothing new)."""


class OutsideBinding(TotalRecallError):
    """A call names a harness or session outside the one harness an MCP server is bound to."""


class InstallError(ConfigError):
    """A client's config file cannot be parsed or merged; the message names the file."""


class ScopeError(TotalRecallError):
    """A mining call outside the scope contract: no scope, a bound out of range, an unknown field."""


class MarkerError(TotalRecallError):
    """A marker cannot be built as asked: a budget too small, a range outside its session, a bad Bo."""


class MarkerRejected(TotalRecallError):
    """A marker names an address the record cannot return or quotes text its entry does not hold."""


class CueError(TotalRecallError):
    """A recall cue that is not one line of text, or a session with nothing to cover."""


class ReceiptError(TotalRecallError):
    """A receipt with a field outside its allowed values."""
