@testable import Config
import Testing

/// `[agent]` and `[checks] source_address`.
@Suite struct AgentConfigTests {
    @Test func agentSectionFromFileAndEnvironment() throws {
        let text = "[agent]\nhub = \"https://hub.example.com\"\ntoken = \"pmg_fromfile123456\"\nname = \"eu-west\"\n"
        let file = try HubConfig.load(text: text)
        #expect(file.agent == { var a = HubConfig.Agent(); a.hub = "https://hub.example.com"; a.token = "pmg_fromfile123456"; a.name = "eu-west"; return a }())
        let env = try HubConfig.load(text: text, environment: ["PINGTXT_AGENT_HUB": "https://other.example.com",
                                                               "PINGTXT_AGENT_TOKEN": "pmg_fromenv1234567"])
        #expect(env.agent.hub == "https://other.example.com" && env.agent.token == "pmg_fromenv1234567" && env.agent.name == "eu-west")
        #expect(HubConfig().agent.hub.isEmpty && HubConfig().agent.token.isEmpty)
    }

    @Test func sourceAddressMustBeAnIPAddress() throws {
        #expect(try HubConfig.load(text: "[checks]\nsource_address = \"127.0.0.2\"").checks.sourceAddress == "127.0.0.2")
        #expect(try HubConfig.load(text: nil, environment: ["PINGTXT_CHECKS_SOURCE_ADDRESS": "2001:db8::10"]).checks.sourceAddress == "2001:db8::10")
        #expect(HubConfig().checks.sourceAddress == "")
        do {
            _ = try HubConfig.load(text: "[checks]\nsource_address = \"eth0\"")
            Issue.record("an interface name is not an address")
        } catch {
            #expect(error.issues.first?.description.contains("checks.source_address: must be an IP address") == true,
                    "\(error.issues)")
        }
    }
}
