"""Small local servers for the browser tests: demo websites to browse (no internet
here), and a TCP relay in front of the platform that a test can cut and restore."""

import contextlib
import html
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _page(title, body):
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font:18px sans-serif;margin:40px}} a,button{{display:inline-block;margin:12px;padding:10px 16px}}
.price{{color:#a11;font-size:28px}} .tall{{height:1600px;background:linear-gradient(#fff,#cde)}}</style></head>
<body><h1>{html.escape(title)}</h1>{body}</body></html>"""


PRODUCTS = [("Steel kettle", "$34.99"), ("Glass kettle", "$29.50"), ("Travel kettle", "$19.00"), ("Gooseneck kettle", "$45.00")]  # fmt: skip


# The long page's colours, pure so that a crop of a screenshot can be checked against them.
LONG_PAGE_BUTTON_RGB = (0x00, 0xC0, 0x00)
LONG_PAGE_HEADER_RGB = (0xC0, 0x00, 0x00)
LONG_PAGE_BUTTON_TOP = 2600  # CSS pixels from the top of the page: far below the first viewport
LONG_PAGE_HEIGHT = 4200


def long_page(*, green_link=False):
    """A page over five 800-pixel viewports tall: a fixed red header, a big pure-green button
    far below the first viewport (pressing it changes the text at the top), and a link back.
    With ``green_link`` the green button is a link to the first product instead, and there
    is no link back (the shop's home is then two clicks away)."""
    green, red = ("#{:02x}{:02x}{:02x}".format(*rgb) for rgb in (LONG_PAGE_BUTTON_RGB, LONG_PAGE_HEADER_RGB))
    press = "document.getElementById('note').textContent='Pressed.'"
    go = (
        '<a id="go" href="/product/0">Go green</a>'
        if green_link
        else f'<button id="go" type="button" onclick="{press}">Go green</button>'
    )
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>A long page – Demo Shop</title>
<style>html,body{{margin:0;padding:0}} body{{font:18px sans-serif;height:{LONG_PAGE_HEIGHT}px;position:relative}}
#pinned{{position:fixed;top:0;left:0;right:0;height:40px;background:{red}}}
#note{{position:absolute;top:60px;left:40px;margin:0}}
#go{{position:absolute;top:{LONG_PAGE_BUTTON_TOP}px;left:300px;width:320px;height:160px;border:0;
background:{green};color:{green};font-size:12px;display:block;margin:0;padding:0;box-sizing:border-box}}
#back{{position:absolute;top:{LONG_PAGE_HEIGHT - 200}px;left:40px}}</style></head>
<body><div id="pinned"></div><p id="note">Scroll down for the green button.</p>
{go}
{"" if green_link else '<a id="back" href="/">Back to the shop</a>'}</body></html>"""


def demo_shop_page(path):
    """The demo shop: a home page linking to product pages, each linking to the next."""
    if path == "/long":
        return long_page()
    if path == "/long-link":
        return long_page(green_link=True)
    if path in ("/", "/index.html"):
        links = "".join(f'<a href="/product/{n}">{name}</a>' for n, (name, _) in enumerate(PRODUCTS))
        return _page("Demo Shop – kettles", f"<p>Choose a kettle:</p><nav>{links}</nav>"
                     '<a href="/account">My account</a><img src="/logo.svg" alt="Demo Shop logo" width="60" height="30">')  # fmt: skip
    if path.startswith("/product/"):
        n = int(path.rsplit("/", 1)[1])
        name, price = PRODUCTS[n]
        nxt = f'<a href="/product/{(n + 1) % len(PRODUCTS)}">Next kettle</a>'
        return _page(f"{name} – Demo Shop", f'<p class="price">{price}</p><button type="button">Add to basket</button>{nxt}'
                     '<a href="/">All kettles</a><div class="tall"></div>')  # fmt: skip
    if path == "/account":
        return _page("My account – Demo Shop", "<p>Signed in as Jane Example, jane@example.org</p><a href='/'>Back</a>")
    return None


class _DemoSite(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/logo.svg":
            body, kind = (
                b'<svg xmlns="http://www.w3.org/2000/svg" width="60" height="30"><rect width="60" height="30" fill="#36c"/></svg>',
                "image/svg+xml",
            )
        else:
            page = demo_shop_page(self.path)
            if page is None:
                self.send_error(404)
                return
            body, kind = page.encode(), "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class DemoSite:
    """The demo shop on a free port of 127.0.0.1, in a thread."""

    def __init__(self):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _DemoSite)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Relay:
    """Forwards a local port to ``target_port``. ``cut()`` refuses new connections and
    drops open ones, as a stopped server would; ``restore()`` brings it back."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.open = threading.Event()
        self.open.set()
        self.connections = []
        self.lock = threading.Lock()
        self.cut_marker, self.cut_nth, self.passed = None, None, 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open.is_set():
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            with self.lock:
                # Checked again under the lock that ``cut`` closes connections under: a
                # connection accepted while the line was being cut would outlive the cut.
                if not self.open.is_set():
                    client.close()
                    upstream.close()
                    continue
                self.connections += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def cut_at(self, marker, nth):
        """Cuts the line at the ``nth`` request holding ``marker`` (e.g. in its request
        line), so that request never reaches the platform whole. A request counts once it
        is passed on: one a browser sends on a connection the platform had just closed
        (and sends again on a new one) counts once. A marker split between two reads is
        found too: each read is searched with the end of the one before."""
        self.cut_marker, self.cut_nth, self.passed = marker, nth, 0

    @staticmethod
    def _markers(marker, data, tail):
        """How many ``marker``s end in ``data`` (``tail``: the end of the read before)."""
        window, start, count = tail + data, 0, 0
        while (found := window.find(marker, start)) != -1:
            count += found + len(marker) > len(tail)
            start = found + 1
        return count

    def _pipe(self, source, sink, outgoing):
        tail = b""
        try:
            while data := source.recv(65536):
                marker = self.cut_marker if outgoing else None
                markers = self._markers(marker, data, tail) if marker else 0
                if markers and self.passed + markers >= self.cut_nth:
                    self.cut()
                    self.cut_marker = None
                    return
                if not self.open.is_set():  # read just before the line was cut: never delivered
                    return
                sink.sendall(data)
                if markers:
                    self.passed += markers
                tail = data[-200:]
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def cut(self):
        self.open.clear()
        with self.lock:
            for connection in self.connections:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                connection.close()
            self.connections.clear()

    def restore(self):
        self.open.set()

    def close(self):
        self.cut()
        self.listener.close()
