import Foundation
import Testing
import TrackingProtocols
import TrackingServer

// The parsers geo serve-tracking and geo loadgen call: a device spec, a base URL.
@Test func deviceSpec_knotsSuffixSetsTheOsmAndSpeedUnit_elseTheWholeSpecIsTheName() {
    #expect(DeviceSettings(spec: "truck-7:knots") == DeviceSettings(name: "truck-7", osmAndSpeedUnit: .knots))
    #expect(DeviceSettings(spec: "phone") == DeviceSettings(name: "phone", osmAndSpeedUnit: .metersPerSecond))
    #expect(DeviceSettings(spec: "a:b") == DeviceSettings(name: "a:b"))
}

@Test func loadgenURL_hostAndPortOfHTTPBaseURLs_nilForOthers() {
    #expect(LoadGenerator.Options.hostAndPort(of: "http://127.0.0.1:5055/").map { [$0.host, "\($0.port)"] } == ["127.0.0.1", "5055"])
    #expect(LoadGenerator.Options.hostAndPort(of: "http://[::1]:8080/").map { [$0.host, "\($0.port)"] } == ["::1", "8080"])
    #expect(LoadGenerator.Options.hostAndPort(of: "http://tracker.example:80").map { [$0.host, "\($0.port)"] } == ["tracker.example", "80"])
    for bad in ["ftp://x:1/", "http://x/", "http://x:port/", "https://x:443/"] {
        #expect(LoadGenerator.Options.hostAndPort(of: bad) == nil, "\(bad)")
    }
}
