"""The forum's pages: the games and their threads, a thread page by page, new posts as JSON for the live
refresh, replying (with a quote), editing one's own post (moderated: web/moderation.py), and a post's
permalink. Replies, edits and PMs are limited per account ([web] posts_per_minute) and rendered when
written (web/posthtml.py)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, redirect, render_template, request, url_for

from forumbot.web.banner import game_banner
from forumbot.web.forumdb import PostRow
from forumbot.web.markup import quoted
from forumbot.web.moderation import edit_refusal, flag_refused_edit
from forumbot.web.session import current_user
from forumbot.web.site import site, thread_title
from forumbot.web.speech import page_lang, w
from forumbot.web.tournaments import tournament_names

bp = Blueprint("forum", __name__)
MAX_POST_CHARS = 20_000
MAX_ID = 2**63 - 1          # an SQLite integer: a larger post number in a URL is no post (not an OverflowError)


def url_number(raw: str) -> int | None:
    """A whole number from a URL, or None: ASCII digits only ("²".isdigit() is true as well) and at most 18 of
    them (int() refuses 4,300 digits; SQLite more than 19)."""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 18 else None


def posted_text(user: str) -> str:
    """The form's post, checked, and counted against `user`'s posts this minute; rendered once now, so that
    its author's request pays for it and no page does."""
    body = request.form.get("body", "").replace("\r\n", "\n").strip()
    if not body:
        abort(400, w("An empty post: write something first."))
    if len(body) > MAX_POST_CHARS:
        abort(400, w("A post holds at most {n} characters.", n=MAX_POST_CHARS))
    limit = site().web.posts_per_minute
    if limit and site().posting.take((f"posts:{user}", limit)):
        abort(429, w("At most {n} posts, edits and messages a minute: wait a little and send it again.", n=limit))
    site().connections().html.html(body)
    return body


def _thread_or_404(key: str) -> dict[str, Any]:
    """The thread, when it exists and the signed-in account may read it (a dead chat is not disclosed)."""
    info = site().connections().db.thread(key)
    if info is None or not site().may_read(current_user(), key):
        abort(404, w("No thread '{key}' on this forum.", key=key))
    return info


def _post_or_404(number: int) -> PostRow:
    post = site().connections().db.post(number)
    if post is None or not site().may_read(current_user(), post.thread):
        abort(404, w("No post {number}.", number=number))
    return post


def _pages(count: int) -> int:
    return max(1, -(-count // site().web.per_page))


@bp.get("/")
def index() -> Any:
    threads = {t["key"]: t for t in site().connections().db.threads()}
    archived = {name for name, row in site().ended().items() if row["archived"]}
    every = site().games()
    games = [(game, site().chart(game), [(purpose, threads[key]) for purpose, key in game.threads.items()
                                         if key in threads]) for game in every if game.name not in archived]
    in_games = {key for game in every for key in game.threads.values()} | site().dead_chats.keys()
    others = [t for key, t in threads.items() if key not in in_games]
    user = current_user()
    dead_chats = {game.name: threads[key] for key, game in site().dead_chats.items()
                  if key in threads and site().may_read(user, key)}
    return render_template("index.html", games=games, others=others, dead_chats=dead_chats,
                           tournaments=tournament_names())


@bp.get("/t/<path:key>")
def thread(key: str) -> Any:
    db = site().connections().db
    info = _thread_or_404(key)
    pages = _pages(db.count(key))
    raw = request.args.get("page", "1")
    page = pages if raw == "last" else (url_number(raw) or 0) if raw.isdigit() else 1
    if not 1 <= page <= pages:
        abort(404, w("Thread '{key}' has {n} page./Thread '{key}' has {n} pages.", pages, key=key, n=pages))
    posts = db.page(key, page, site().web.per_page)
    draft = ""
    if (quote := url_number(request.args.get("quote", ""))) is not None and (post := db.post(quote)) is not None \
            and site().may_read(current_user(), post.thread):
        draft = quoted(post.author, post.body, site().settings.dialect)
    game = site().game_of_thread.get(key)
    purpose = next((p for p, k in game.threads.items() if k == key), "") if game else ""
    if game is not None:   # a game's thread is titled for people, not by its key ("my7: votes")
        info = {**info, "title": thread_title(game.name, purpose)}
    return render_template("thread.html", thread=info, posts=posts, page=page, pages=pages, draft=draft,
                           game=game, may_post=site().may_post(current_user(), key),
                           last_id=max([p.id for p in posts], default=0), banner=game_banner(game))


@bp.get("/new.json")
def new_posts() -> Any:
    """Posts of a thread after an id, rendered, for the thread page's live refresh."""
    key = request.args.get("t", "")
    after = url_number(request.args.get("after", "0"))
    _thread_or_404(key)
    if after is None:
        abort(400, w("after must be a post number"))
    posts = site().connections().db.after(key, after)
    page = _pages(site().connections().db.count(key))
    return jsonify({"posts": [{"id": p.id, "html": render_template("_post.html", post=p, page=page)}
                              for p in posts]})


@bp.post("/reply")
def reply() -> Any:
    user = current_user()
    key = request.form.get("thread", "")
    if not user:
        abort(401, w("Sign in to post."))
    _thread_or_404(key)
    if not site().may_post(user, key):
        abort(403, w("Only the players and the host of this game post in its threads.")
              if key not in site().dead_chats else w("Only the dead, the spectators and the host post here."))
    platform_id = site().connections().forum.add_post(key, user, posted_text(user))
    return redirect(url_for("forum.permalink", number=int(platform_id.split(":")[1])))


@bp.get(f"/p/<int(max={MAX_ID}):number>")
def permalink(number: int) -> Any:
    post = _post_or_404(number)
    page = site().connections().db.page_of(post, site().web.per_page)
    return redirect(url_for("forum.thread", key=post.thread, page=page) + f"#p{number}")


@bp.route(f"/p/<int(max={MAX_ID}):number>/edit", methods=["GET", "POST"])
def edit(number: int) -> Any:
    user = current_user()
    post = _post_or_404(number)
    if not user or user != post.author:
        abort(403, w("You can edit only your own posts."))
    if request.method == "GET":
        if why := edit_refusal(user, post, post.body, page_lang()):
            abort(403, w("This post cannot be edited: {why}.", why=why))
        return render_template("edit.html", post=post)
    body = posted_text(user)
    if why := edit_refusal(user, post, body, page_lang()):
        flag_refused_edit(user, post, body)
        abort(403, w("This edit is refused: {why}.", why=why))
    site().connections().forum.edit_post(f"local:{number}", body)
    return redirect(url_for("forum.permalink", number=number))
