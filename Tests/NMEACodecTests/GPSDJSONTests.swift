import Foundation
import Testing
import GeoCore
import GeoTestSupport
import NMEACodec

@Test(.onOwnThread) func gpsdJSON_everyReportInEveryChk_decodes() throws {
    guard let logs = try Fixtures.files(in: "nmea", withExtension: "log") else { return }
    var counts: [String: Int] = [:]
    for log in logs {
        let chk = try String(contentsOf: log.appendingPathExtension("chk"), encoding: .utf8)
        for line in chk.split(whereSeparator: \.isNewline) where line.hasPrefix("{") {
            let message = try GPSDMessage(json: String(line))
            switch message {
            case .tpv: counts["TPV", default: 0] += 1
            case .sky: counts["SKY", default: 0] += 1
            case .gst: counts["GST", default: 0] += 1
            case .att: counts["ATT", default: 0] += 1
            case .other(let name): Issue.record("unmodelled class \(name) in \(log.lastPathComponent)")
            default: counts["other", default: 0] += 1
            }
            // Round trip: our encoding decodes to the same value.
            #expect(try GPSDMessage(json: message.json()) == message)
        }
    }
    #expect((counts["TPV"] ?? 0) > 1000)
    #expect((counts["SKY"] ?? 0) > 100)
    #expect((counts["GST"] ?? 0) > 10)
    #expect((counts["ATT"] ?? 0) > 0)
}

@Test func gpsdJSON_tpv_convertsErrorsTo68Percent() throws {
    let line = #"{"class":"TPV","mode":3,"time":"2019-04-12T00:39:56.250Z","lat":-45.877567167,"lon":170.500111333,"altHAE":16.0,"altMSL":14.2,"epv":19.09,"speed":0.013,"track":12.5,"eph":12.16,"eps":0.98,"epd":3.92}"#
    guard case .tpv(let tpv) = try GPSDMessage(json: line) else { Issue.record("not TPV"); return }
    let l = try #require(tpv.location)
    #expect(abs(l.coordinate.latitude - -45.877567167) < 1e-12)                       // degrees
    #expect(abs((l.horizontalAccuracy?.meters ?? 0) - 12.16 / 2.447746830680816) < 1e-9) // metres
    #expect(abs((l.verticalAccuracy?.meters ?? 0) - 19.09 / 1.96) < 1e-9)             // metres
    #expect(abs((l.speedAccuracy?.metersPerSecond ?? 0) - 0.5) < 1e-9)                // m/s
    #expect(abs((l.courseAccuracy?.degrees ?? 0) - 2.0) < 1e-9)                                // degrees
    #expect(abs((l.altitude?.meters ?? 0) - 14.2) < 1e-12)                            // metres
    let expected = Double(NMEADate(year: 2019, month: 4, day: 12).daysSinceEpoch) * 86_400 + 39 * 60 + 56.25
    #expect(abs(l.timestamp.timeIntervalSince1970 - expected) < 1e-6)                 // seconds
}

@Test func gpsdJSON_controlMessages_decodeAndEncode() throws {
    let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
    #expect(try GPSDMessage(json: version) == .version(.init(release: "3.22", rev: "3.22", protoMajor: 3, protoMinor: 14)))
    let devices = #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/1","activated":"2026-11-21T08:08:35.760Z","native":0,"bps":4800,"parity":"N","stopbits":1,"cycle":1.00}]}"#
    guard case .devices(let d) = try GPSDMessage(json: devices) else { Issue.record("not DEVICES"); return }
    #expect(d.devices.first?.bps == 4800 && d.devices.first?.path == "/dev/pts/1")
    let watch = #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"#
    guard case .watch(let w) = try GPSDMessage(json: watch) else { Issue.record("not WATCH"); return }
    #expect(w.enable == true && w.json == true && w.nmea == false)
    #expect(GPSDMessage.watchCommand() == "?WATCH={\"enable\":true,\"json\":true}\n")
    guard case .device(let closed) = try GPSDMessage(json: #"{"class":"DEVICE","path":"/dev/pts/3","activated":0}"#) else { Issue.record("not DEVICE"); return }
    #expect(closed.deactivated && closed.activated == nil)
    #expect(GPSDMessage.device(closed).json() == #"{"class":"DEVICE","activated":0,"path":"\/dev\/pts\/3"}"# || GPSDMessage.device(closed).json() == #"{"class":"DEVICE","activated":0,"path":"/dev/pts/3"}"#)
    #expect(try GPSDMessage(json: #"{"class":"ERROR","message":"Unrecognized request 'FOO'"}"#) == .error(.init(message: "Unrecognized request 'FOO'")))
    #expect(try GPSDMessage(json: #"{"class":"PPS","device":"/dev/pps0"}"#) == .other(className: "PPS"))
    #expect(GPSDMessage.other(className: "PPS").json() == #"{"class":"PPS"}"#)
    #expect(GPSDMessage.version(.init(release: "3.22", protoMajor: 3, protoMinor: 14)).json()
            == #"{"class":"VERSION","proto_major":3,"proto_minor":14,"release":"3.22"}"#)
}

@Test func gpsdJSON_garbage_throwsInvalidJSON() {
    for bad in ["", "{", "[]", #"{"mode":3}"#, #"{"class":"TPV"}"#, #"{"class":"TPV","mode":"x"}"#] {
        do {
            _ = try GPSDMessage(json: bad)
            Issue.record("accepted \(bad)")
        } catch {
            #expect(error.code == .invalidJSON)
        }
    }
}

@Test func gpsdJSON_fixToTPV_matchesDecoder() throws {
    let text = "$GNRMC,003956.00,A,4552.65403,S,17030.00668,E,0.025,,120419,,,A,V*07\r\n$GNGGA,003956.00,4552.65403,S,17030.00668,E,1,12,0.64,14.2,M,1.8,M,,*56\r\n"
    let fix = try #require(NMEADecoder.decode(Array(text.utf8)).first)
    let tpv = GPSDMessage.TPV(fix)
    #expect(tpv.mode == 3 && tpv.time == "2019-04-12T00:39:56.000Z")
    #expect(abs((tpv.eph ?? 0) - 12.16) < 1e-9) // metres, 0.64 × 19
    #expect(try GPSDMessage(json: GPSDMessage.tpv(tpv).json()) == .tpv(tpv))
}
