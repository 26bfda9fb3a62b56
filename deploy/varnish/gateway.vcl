vcl 4.1;

# Varnish in front of the gateway's public port: GET answers are kept as long as their Cache-Control says (never past
# the freshness of their data), each under the tags of its Cache-Tag header, so that one purge by tag drops every
# answer holding a search, a jurisdiction or a company. Needs varnish-modules (xkey). docs/operations.md, "Putting a
# CDN or Varnish in front", says how to purge; test/gateway/response-cache/varnish.test.ts runs this very file.

import xkey;

backend gateway {
  .host = "127.0.0.1";
  .port = "4000";
}

# Who may purge: the hosts the gateway's operators purge from, never clients.
acl purgers {
  "127.0.0.1";
  "::1";
}

sub vcl_recv {
  if (req.method == "PURGE") {
    if (client.ip !~ purgers) {
      return (synth(403, "Forbidden"));
    }
    if (!req.http.xkey) {
      return (synth(400, "Name the tags to purge in an xkey header"));
    }
    return (synth(200, "Purged " + xkey.purge(req.http.xkey)));
  }
  # Everything else as Varnish's built-in rules have it: GET and HEAD without credentials or cookies are looked up.
}

sub vcl_backend_response {
  # xkey reads the tags, separated by commas or spaces, from its own header.
  if (beresp.http.Cache-Tag) {
    set beresp.http.xkey = beresp.http.Cache-Tag;
  }
}

sub vcl_deliver {
  unset resp.http.xkey;
  if (obj.hits > 0) {
    set resp.http.X-Cache = "hit";
  } else {
    set resp.http.X-Cache = "miss";
  }
}
