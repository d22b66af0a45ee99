import Config
import Core
import Testing

private func issues(_ text: String?, env: [String: String] = [:]) -> [String] {
    do { _ = try HubConfig.load(text: text, environment: env); return [] } catch { return error.issues.map(\.description) }
}

/// `[database] url` (SPEC §14): which engine, from file or environment,
/// checked by the same parser the Store uses, and never echoing a password.
@Suite struct DatabaseConfigTests {
    @Test func defaultIsTheSQLitePath() throws {
        let config = try HubConfig.load(text: nil)
        #expect(config.database.url == nil)
        #expect(config.database.location == DatabaseURL(sqlitePath: "./data/pingtxt.db"))
        #expect(config.database.location.engine == .sqlite)
    }

    @Test func postgresAndSQLiteURLs() throws {
        let pg = try HubConfig.load(text: "[database]\nurl = \"postgres://hub:s3cret@db.internal:5432/pingtxt?sslmode=require\"")
        #expect(pg.database.location.engine == .postgres)
        #expect(pg.database.location.redacted == "postgres://hub:***@db.internal:5432/pingtxt?sslmode=require")
        let lite = try HubConfig.load(text: nil, environment: ["PINGTXT_DATABASE_URL": "sqlite:///var/lib/pingtxt/hub.db"])
        #expect(lite.database.location.kind == .sqlite(path: "/var/lib/pingtxt/hub.db"))
        let relative = try HubConfig.load(text: "[database]\nurl = \"sqlite:data/x.db\"")
        #expect(relative.database.location.kind == .sqlite(path: "data/x.db"))
        #expect(try HubConfig.load(text: "[database]\nurl = \"\"").database.url == nil)
    }

    @Test func badURLsAreRefusedWithoutTheirPassword() {
        let wrong = issues("[database]\nurl = \"mysql://u:topsecret@h/db\"")
        #expect(wrong.count == 1 && wrong[0].contains("database.url") && wrong[0].contains("sqlite: or postgres://"), "\(wrong)")
        #expect(!wrong.joined().contains("topsecret"))
        let noHost = issues(nil, env: ["PINGTXT_DATABASE_URL": "postgres:///pingtxt"])
        #expect(noHost.count == 1 && noHost[0].contains("needs a host"), "\(noHost)")
        let control = issues(nil, env: ["PINGTXT_DATABASE_URL": "postgres://u:topsecret@h/db\nx"])
        #expect(control.count == 1 && !control.joined().contains("topsecret"), "\(control)")
        #expect(issues("[database]\nurl = \"sqlite://host/x.db\"").count == 1)
    }

    @Test func pathAndURLTogetherIsAnError() {
        let both = issues("[database]\npath = \"/tmp/a.db\"\nurl = \"postgres://u@h/db\"")
        #expect(both == ["database.url: set database.path or database.url, not both (a SQLite file can be given as url = \"sqlite:///path/to/pingtxt.db\")"],
                "\(both)")
        #expect(issues("[database]\npath = \"/tmp/a.db\"", env: ["PINGTXT_DATABASE_URL": "postgres://u@h/db"]).count == 1)
        #expect(issues("[database]\npath = \"/tmp/a.db\"\nurl = \"\"").isEmpty)
    }

    @Test func redactionCoversQueryPasswords() throws {
        #expect(try DatabaseURL("postgresql://h/db?user=u&password=pw&sslmode=verify-full").redacted
                == "postgresql://h/db?user=u&password=***&sslmode=verify-full")
        #expect(try DatabaseURL("postgres://u@h/db").redacted == "postgres://u@h/db")
    }
}
