import GeoBase
import Foundation
import GeoCore
import Testing
import TrackingProtocols

/// The HTTP tracking formats against their documented examples, and bad input.
@Suite struct HTTPProtocolTests {
    /// 2024-06-01T12:00:00Z.
    let rules = DecodingRules(now: Date(timeIntervalSince1970: 1_717_243_200))

    /// The OsmAnd app's online-tracking template with its placeholders filled the way the app
    /// fills them (`MessageFormat` over Java's `toString` of the fix's values: milliseconds,
    /// metres, m/s, degrees).
    static func osmAndQuery(device: String = "phone-1") -> Substring {
        var url = "id=\(device)&lat={0}&lon={1}&timestamp={2}&hdop={3}&altitude={4}&speed={5}&bearing={6}"
        for (i, value) in ["52.5163", "13.3777", "1717243140000", "4.5", "38.0", "1.39", "271.5"].enumerated() {
            url = url.replacingOccurrences(of: "{\(i)}", with: value)
        }
        return Substring(url)
    }

    @Test func osmAnd_appPlaceholders_normalised() throws {
        let fixes = try OsmAnd.decode(query: Self.osmAndQuery(), body: [], contentType: nil, rules: rules)
        #expect(fixes.count == 1)
        let f = fixes[0], l = f.location
        #expect(f.device == "phone-1" && f.source == .osmAnd)
        #expect(l.coordinate.latitude == 52.5163 && l.coordinate.longitude == 13.3777)
        #expect(l.timestamp.timeIntervalSince1970 == 1_717_243_140) // milliseconds read as such
        #expect(l.horizontalAccuracy == .meters(4.5))
        #expect(l.altitude == .meters(38))
        #expect(l.speed == .metersPerSecond(1.39))
        #expect(l.course?.degrees == 271.5)
    }

    @Test func osmAnd_knotsDevice_speedConverted() throws {
        let fixes = try OsmAnd.decode(query: "id=t1&lat=1&lon=2&timestamp=1717243140&speed=10", body: [], contentType: nil,
                                      rules: rules, speedUnit: { $0 == "t1" ? .knots : .metersPerSecond })
        #expect(abs(fixes[0].location.speed!.metersPerSecond - 5.144444) < 1e-6) // 10 kn = 18.52 km/h
        #expect(fixes[0].location.timestamp.timeIntervalSince1970 == 1_717_243_140) // seconds read as such
    }

    @Test func osmAnd_formBody_andJSONBody() throws {
        let form = try OsmAnd.decode(query: "", body: Array("id=f1&location=-33.5%2C151.25&timestamp=2024-06-01%2011:59:00".utf8),
                                     contentType: "application/x-www-form-urlencoded", rules: rules)
        #expect(form[0].device == "f1" && form[0].location.coordinate.latitude == -33.5 && form[0].location.coordinate.longitude == 151.25)
        #expect(form[0].location.timestamp.timeIntervalSince1970 == 1_717_243_140)
        let json = """
        {"location":{"timestamp":"2024-06-01T11:59:00.500Z","coords":{"latitude":48.85,"longitude":2.35,"accuracy":12,"speed":3.5,"heading":90,"altitude":35}},"device_id":"tc-9"}
        """
        let j = try OsmAnd.decode(query: "", body: Array(json.utf8), contentType: "application/json", rules: rules)
        #expect(j[0].device == "tc-9" && j[0].location.speed == .metersPerSecond(3.5) && j[0].location.course?.degrees == 90)
        #expect(j[0].location.timestamp.timeIntervalSince1970 == 1_717_243_140.5)
    }

    /// WHATWG URL Standard §5.1 (application/x-www-form-urlencoded parsing): `+` is a space,
    /// `%XX` a byte (several of them one UTF-8 character), empty pairs are skipped, a name
    /// without `=` has an empty value; the first occurrence of a name wins, the query's before
    /// a form body's.
    @Test func osmAnd_formEncoding_decodedAndFirstOccurrenceWins() throws {
        let fixes = try OsmAnd.decode(query: "&&id=caf%C3%A9+1&lat=1.5&lat=9&flag&lon=2&speed=&lon=3&timestamp=1717243140", body: [],
                                      contentType: nil, rules: rules)
        #expect(fixes[0].device == "café 1")
        #expect(fixes[0].location.coordinate.latitude == 1.5 && fixes[0].location.coordinate.longitude == 2)
        #expect(fixes[0].location.speed == nil) // present but empty: absent
        let both = try OsmAnd.decode(query: "id=q&lat=1&lon=2", body: Array("id=b&lat=3&lon=4&timestamp=1717243140\r\n".utf8),
                                     contentType: "application/x-www-form-urlencoded", rules: rules)
        #expect(both[0].device == "q" && both[0].location.coordinate.latitude == 1 && both[0].location.timestamp.timeIntervalSince1970 == 1_717_243_140)
        #expect(osmAndError("id=a&lat=1&lon=0&timestamp=1717243140&x=%2")?.code == .malformed) // '%' and one hex digit at the end
        #expect(osmAndError("id=%FF&lat=1&lon=0&timestamp=1717243140")?.code == .malformed) // not UTF-8 once decoded
        #expect(osmAndError("id=%FF&lat=1&lon=0&timestamp=1717243140")?.location == "query parameter")
        // At most `FormFields.maximumFields` fields: the bound itself passes, one more is refused.
        let padding = (4..<FormFields.maximumFields).map { "p\($0)=1" }.joined(separator: "&")
        #expect(osmAndError(Substring("id=a&lat=1&lon=0&timestamp=1717243140&" + padding)) == nil)
        #expect(osmAndError(Substring("id=a&lat=1&lon=0&timestamp=1717243140&" + padding + "&one=more"))?.code == .malformed)
    }

    @Test func overland_readmeExample_fieldByField() throws {
        let body = """
        {
          "locations": [
            {
              "type": "Feature",
              "geometry": { "type": "Point", "coordinates": [ -122.030581, 37.331800 ] },
              "properties": {
                "timestamp": "2015-10-01T08:00:00-0700", "altitude": 0, "speed": 4, "horizontal_accuracy": 30,
                "vertical_accuracy": -1, "motion": ["driving","stationary"], "pauses": false, "activity": "other_navigation",
                "desired_accuracy": 100, "deferred": 1000, "significant_change": "disabled", "locations_in_payload": 1,
                "battery_state": "charging", "battery_level": 0.89, "device_id": "", "wifi": ""
              }
            }
          ]
        }
        """
        let rules2015 = DecodingRules(now: Date(timeIntervalSince1970: 1_443_711_600))
        let decoded = try Overland.decode(body: Array(body.utf8), deviceHint: "iphone", rules: rules2015)
        #expect(decoded.rejected.isEmpty && decoded.fixes.count == 1)
        let f = decoded.fixes[0], l = f.location
        #expect(f.device == "iphone") // device_id "" → the hint
        #expect(l.coordinate.latitude == 37.3318 && l.coordinate.longitude == -122.030581)
        #expect(l.timestamp.timeIntervalSince1970 == 1_443_711_600) // 08:00 at −07:00 = 15:00Z
        #expect(l.altitude == .meters(0) && l.speed == .metersPerSecond(4))
        #expect(l.horizontalAccuracy == .meters(30) && l.verticalAccuracy == .meters(-1)) // −1 kept: invalid
    }

    @Test func overland_oneBadPoint_rejectedAloneWithItsPath() throws {
        let good = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2,48]},"properties":{"timestamp":"2024-06-01T11:00:00Z","device_id":"d"}}"#
        let bad = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[2,91]},"properties":{"timestamp":"2024-06-01T11:00:00Z","device_id":"d"}}"#
        let decoded = try Overland.decode(body: Array(#"{"locations":[\#(good),\#(bad)]}"#.utf8), deviceHint: nil, rules: rules)
        #expect(decoded.fixes.count == 1)
        #expect(decoded.rejected.map(\.code) == [.invalidCoordinate])
        #expect(decoded.rejected.first?.location == "$.locations[1].geometry.coordinates")
    }

    @Test func ownTracks_location_andOtherTypesIgnored() throws {
        let body = #"{"_type":"location","tid":"jj","lat":51.5,"lon":-0.12,"tst":1717243100,"acc":8,"alt":20,"vac":3,"vel":36,"cog":45,"topic":"owntracks/jane/phone"}"#
        let fixes = try OwnTracks.decode(body: Array(body.utf8), deviceHint: nil, rules: rules)
        #expect(fixes.count == 1 && fixes[0].device == "jane/phone")
        #expect(abs(fixes[0].location.speed!.metersPerSecond - 10) < 1e-12) // 36 km/h
        #expect(fixes[0].location.verticalAccuracy == .meters(3) && fixes[0].location.course?.degrees == 45)
        let other = try OwnTracks.decode(body: Array(#"{"_type":"transition","event":"enter"}"#.utf8), deviceHint: "a/b", rules: rules)
        #expect(other.isEmpty)
        let hinted = try OwnTracks.decode(body: Array(#"{"_type":"location","lat":1,"lon":2,"tst":1717243100}"#.utf8), deviceHint: "u/d", rules: rules)
        #expect(hinted[0].device == "u/d")
    }

    @Test func gpsLogger_allForm() throws {
        let form = "lat=41.74108695983887&lon=-91.84490871429443&sat=7&desc=&alt=187.0&acc=6.0&dir=170.8125&prov=gps&spd_kph=36.0&spd=10.0&timestamp=1717243100&time=2024-06-01T11:58:20.000Z&batt=90.0&ischarging=false&aid=abc123&ser=SER42&act=&filename=20240601&profile=Default&hdop=0.9&vdop=&pdop=&dist=0"
        let f = try GPSLogger.decode(query: "", body: Array(form.utf8), rules: rules)
        #expect(f.device == "SER42" && f.source == .gpsLogger)
        #expect(f.location.speed == .metersPerSecond(10) && f.location.satelliteCount == 7 && f.location.horizontalAccuracy == .meters(6))
        #expect(f.location.timestamp.timeIntervalSince1970 == 1_717_243_100)
    }

    // MARK: bad input: typed errors with their location

    func osmAndError(_ query: Substring) -> TrackingProtocolError? {
        do { _ = try OsmAnd.decode(query: query, body: [], contentType: nil, rules: rules); return nil } catch { return error }
    }

    @Test func badInput_latitude91_NaN_oldAndFutureTimes() {
        #expect(osmAndError("id=a&lat=91&lon=0&timestamp=1717243100")?.code == .invalidCoordinate)
        #expect(osmAndError("id=a&lat=91&lon=0&timestamp=1717243100")?.location == "query parameter 'lat'")
        #expect(osmAndError("id=a&lat=NaN&lon=0&timestamp=1717243100")?.code == .invalidNumber)
        #expect(osmAndError("id=a&lat=1&lon=0&timestamp=946684799")?.code == .invalidTime) // 1999-12-31T23:59:59Z
        #expect(osmAndError("id=a&lat=1&lon=0&timestamp=946684799")?.location == "query parameter 'timestamp'")
        #expect(osmAndError("id=a&lat=1&lon=0&timestamp=\(1_717_243_200 + 86_401)")?.code == .invalidTime) // a day and 1 s ahead
        #expect(osmAndError("id=a&lat=1&lon=0&timestamp=\(1_717_243_200 + 86_400)") == nil) // exactly a day ahead passes
        #expect(osmAndError("lat=1&lon=0")?.code == .missingDevice)
        #expect(osmAndError("id=a&lat=1&lon=0&timestamp=%ZZ")?.code == .malformed)
    }

    @Test func badInput_bodyOver5MB_andDeepJSON() {
        let big = [UInt8](repeating: 0x20, count: (5 << 20) + 1)
        #expect { try Overland.decode(body: big, deviceHint: "d", rules: rules) } throws: { ($0 as? TrackingProtocolError)?.code == .bodyTooLarge }
        let deep = Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        #expect { try OwnTracks.decode(body: deep, deviceHint: "d", rules: rules) } throws: {
            ($0 as? TrackingProtocolError)?.code == .tooDeep && ($0 as? TrackingProtocolError)?.location == "byte 32"
        }
        #expect { try Overland.decode(body: Array(#"{"locations": [1,"#.utf8), deviceHint: "d", rules: rules) } throws: {
            ($0 as? TrackingProtocolError)?.code == .malformed
        }
    }
}
