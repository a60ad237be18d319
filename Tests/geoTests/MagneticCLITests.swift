import Foundation
import Testing
import GeoTestSupport

@Test func magnetic_json_printsTheFieldPerCONTRACT() async throws {
    // NOAA WMM2025 test value: 2027.5, 100 km, 80°N 0°E → declination 2.16°.
    let result = try await GeoProcess.geo(["magnetic", "80,0", "--date", "2027.5", "--altitude", "100000", "--json"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    let declination = try #require(object["declination"] as? Double)
    #expect(abs(declination - 2.16) <= 0.005 + 1e-9) // degrees
    for key in ["inclination", "totalIntensity", "horizontalIntensity", "north", "east", "down"] {
        #expect(object[key] is Double, "\(key) missing")
    }
}

@Test func magnetic_plain_acceptsASouthernWesternPointAndADate_declinationFirst() async throws {
    let result = try await GeoProcess.geo(["magnetic", "-33.92,-18.42", "--date", "2026-07-01"])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    #expect(result.stdout.hasPrefix("declination:"))
    #expect(result.stdout.contains("inclination:") && result.stdout.contains("nT"))
}

@Test func magnetic_badInput_failsWithTheReason() async throws {
    for (arguments, reason) in [(["1,2", "--date", "2031-01-01"], "valid"), (["1,2", "--date", "2026-02-30"], "no such day"),
                                (["1,2", "--date", "soon"], "YYYY-MM-DD"), (["1,2", "--altitude", "nan"], "--altitude"),
                                (["91,2"], "latitude"), ([], "one point")] {
        let result = try await GeoProcess.geo(["magnetic"] + arguments)
        #expect(result.status != 0 && result.stdout.isEmpty, "\(arguments)")
        #expect(result.stderr.contains(reason), "\(arguments): \(result.stderr)")
    }
}
