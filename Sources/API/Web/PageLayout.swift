/// The one HTML layout of the hub's pages: no scripts, no external
/// resources (the CSP forbids them anyway), readable at phone width.
enum PageLayout {
    /// `refresh`: reload after that many seconds (from `url` when given).
    /// The pages that wait for something (a phone's approval) poll this way
    /// because they run no script.
    static func render(title: String, hubName: String, body: String, refresh: (seconds: Int, url: String?)? = nil) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">\(refreshTag(refresh))
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>\(h(title)) · \(h(hubName))</title>
        <style>
        *{box-sizing:border-box}
        body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d2330}
        main{max-width:24rem;margin:10vh auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.08)}
        h1{font-size:1.3rem;margin:0 0 1rem}
        .hub{color:#667;font-size:.9rem;margin:0 0 .25rem}
        label{display:block;font-weight:600;margin:.75rem 0 .25rem}
        input[type=email],input[type=password],input[type=text]{width:100%;padding:.6rem;border:1px solid #c5cad3;border-radius:8px;font:inherit}
        input:focus{outline:2px solid #3465d9;outline-offset:1px}
        button{margin-top:1.25rem;width:100%;padding:.65rem;border:0;border-radius:8px;background:#3465d9;color:#fff;font:inherit;font-weight:600;cursor:pointer}
        button.secondary{background:#e6e9ef;color:#1d2330}
        .error{background:#fdecec;color:#8a1c1c;padding:.6rem .75rem;border-radius:8px;margin:0 0 1rem}
        .hint{color:#667;font-size:.9rem}
        .approval-code{font-size:3rem;font-weight:700;letter-spacing:.1em;text-align:center;margin:1rem 0}
        @media (max-width:30rem){main{margin:0;min-height:100vh;border-radius:0;box-shadow:none}}
        </style>
        </head>
        <body>
        <main>
        <p class="hub">\(h(hubName))</p>
        \(body)
        </main>
        </body>
        </html>

        """
    }

    private static func refreshTag(_ refresh: (seconds: Int, url: String?)?) -> String {
        guard let refresh else { return "" }
        let content = refresh.url.map { "\(refresh.seconds); url=\($0)" } ?? "\(refresh.seconds)"
        return "\n<meta http-equiv=\"refresh\" content=\"\(h(content))\">"
    }
}
