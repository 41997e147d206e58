"""The web forum: people play on the local forum in a browser (Flask pages served by waitress).

`create_app(settings)` builds the app (forumbot.web.app); `WebServer` serves it in a thread beside the
bot's scheduler (forumbot.web.server). The config half (forumbot.web.config) imports no web code.
"""
