"""What a praw or prawcore failure means for the bot: a PlatformError, retryable or not.

Retryable: 429 and 5xx answers (prawcore has already retried 5xx twice), timeouts, dropped connections and
truncated bodies, malformed JSON, Reddit's RATELIMIT ("you are doing that too much"). Not retryable: bad
credentials, a forbidden or missing thing, a comment too long, a locked thread, an unknown user.
"""

from __future__ import annotations

from forumbot.errors import PlatformError

# RedditAPIException error types worth trying again later.
_RETRY_API = {"RATELIMIT", "TRY_LATER", "SERVER_ERROR"}


def platform_error(what: str, err: Exception) -> PlatformError:
    from praw.exceptions import ClientException, RedditAPIException
    from prawcore import exceptions as core

    if isinstance(err, core.TooManyRequests):
        after = err.response.headers.get("retry-after") or err.response.headers.get("x-ratelimit-reset")
        hint = f"; try again in {after}s" if after else ""
        return PlatformError(f"Reddit: too many requests while {what}{hint}", retryable=True)
    if isinstance(err, core.BadJSON):
        return PlatformError(f"Reddit sent malformed JSON while {what}", retryable=True)
    if isinstance(err, core.ServerError):
        return PlatformError(f"Reddit server error {err.response.status_code} while {what}", retryable=True)
    if isinstance(err, core.RequestException):
        return PlatformError(f"cannot reach Reddit while {what}: {err.original_exception!r}", retryable=True)
    if isinstance(err, core.OAuthException):
        return PlatformError(f"Reddit refused the bot's credentials ({err.error}) while {what}: check the "
                             "praw.ini site or the praw_* environment variables")
    if isinstance(err, (core.Forbidden, core.InvalidToken, core.InsufficientScope)):
        return PlatformError(f"Reddit forbids {what} ({err.response.status_code})")
    if isinstance(err, core.NotFound):
        return PlatformError(f"Reddit has no such thing ({what})")
    if isinstance(err, core.ResponseException):
        status = err.response.status_code
        return PlatformError(f"Reddit answered {status} while {what}", retryable=status >= 500 or status == 408)
    if isinstance(err, RedditAPIException):
        kinds = {item.error_type for item in err.items}
        text = "; ".join(f"{item.error_type}: {item.message}" for item in err.items)
        return PlatformError(f"Reddit refused {what}: {text}", retryable=bool(kinds & _RETRY_API))
    if isinstance(err, ClientException):
        return PlatformError(f"praw refused {what}: {err}")
    if isinstance(err, (ValueError, KeyError, TypeError, AttributeError, AssertionError)):
        # Reddit's JSON was not the shape praw expects (a half-written answer, an outage page).
        return PlatformError(f"unexpected answer from Reddit while {what}: {err!r}", retryable=True)
    return PlatformError(f"Reddit failed while {what}: {err!r}", retryable=True)
