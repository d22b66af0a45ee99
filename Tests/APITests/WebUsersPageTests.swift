import Core
import Testing

/// `/users` (admins) through the running binary: add, change role, delete,
/// and the API's refusals (last admin, email taken) shown on the page.
@Suite struct WebUsersPageTests {
    func users(_ hub: HubProcess) throws -> [JSON] {
        try #require(try expectJSON(try hub.call("GET", "/api/users", token: try hub.token()))["items"]?.arrayValue)
    }

    @Test func addChangeRoleDeleteAndRefusals() throws {
        let hub = try HubProcess()
        let b = try Pages.signedIn(hub)
        let page = try b.get("/users")
        #expect(page.status == 200 && page.text.contains(HubProcess.adminEmail) && page.text.contains(">Add user</button>"))

        let added = try Pages.submit(b, "/users", [("email", "grace@example.com"), ("name", "Grace <H>"), ("role", "readonly"),
                                                  ("password", "a long password")])
        #expect(added.status == 303 && added.header("Location") == "/users?flash=added", "\(added.text)")
        let shown = try b.get("/users?flash=added")
        #expect(shown.text.contains("User added.") && shown.text.contains("grace@example.com") && shown.text.contains("Grace &lt;H&gt;"))
        let grace = try #require(try users(hub).first { $0["email"] == "grace@example.com" })
        let graceID = try #require(grace["id"]?.intValue)
        #expect(grace["role"] == "readonly" && grace["name"] == "Grace <H>")
        let admin = try #require(try users(hub).first { $0["email"] == .string(HubProcess.adminEmail) })
        let adminID = try #require(admin["id"]?.intValue)

        // Email taken: the API's message, the form keeps what was typed.
        let taken = try Pages.submit(b, "/users", [("email", "grace@example.com"), ("name", "Again"), ("role", "admin"),
                                                  ("password", "a long password")])
        #expect(taken.status == 409 && taken.text.contains("A user with the email grace@example.com already exists."))
        #expect(taken.text.contains("value=\"Again\"") && taken.text.contains("<option value=\"admin\" selected>admin</option>"))
        let short = try Pages.submit(b, "/users", [("email", "h@example.com"), ("role", "readonly"), ("password", "short")])
        #expect(short.status == 400 && short.text.contains("Password must be at least 8 characters long."))

        // The last admin cannot be demoted or deleted.
        let demote = try Pages.submit(b, "/users/\(adminID)/role", [("role", "readonly")])
        #expect(demote.status == 409 && demote.text.contains("This is the only admin; make another user admin first."))
        let deleteLast = try Pages.submit(b, "/users/\(adminID)/delete", [])
        #expect(deleteLast.status == 409 && deleteLast.text.contains("This is the only admin; it cannot be deleted."))

        let promoted = try Pages.submit(b, "/users/\(graceID)/role", [("role", "admin")])
        #expect(promoted.status == 303 && promoted.header("Location") == "/users?flash=role-changed")
        #expect(try users(hub).first { $0["id"] == .int(graceID) }?["role"] == "admin")
        #expect(try b.post("/users/\(graceID)/delete", form: []).status == 403, "no CSRF token")
        let deleted = try Pages.submit(b, "/users/\(graceID)/delete", [])
        #expect(deleted.status == 303 && deleted.header("Location") == "/users?flash=deleted")
        #expect(try users(hub).count == 1)
        #expect(try Pages.submit(b, "/users/\(graceID)/delete", []).status == 404)
    }
}
