"""Serves a fixture site on 127.0.0.1 (a free port, printed first) for
the mirror tests: a file without an extension is served as HTML, as a
site's pretty URLs are."""
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    def guess_type(self, path):
        name = str(path).rsplit("/", 1)[-1]
        if "." not in name:
            return "text/html"
        return super().guess_type(path)

    def log_message(self, *args):
        pass


handler = functools.partial(Handler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
