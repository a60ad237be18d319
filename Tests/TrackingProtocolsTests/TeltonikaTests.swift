import GeoBase
import Foundation
import GeoCore
import Testing
import TrackingProtocols

/// The Codec 8 / 8E examples of Teltonika's wiki ("Teltonika Data Sending Protocols"), field by field.
@Suite struct TeltonikaTests {
    static let login = "000F333536333037303432343431303133"
    static let codec8First = "000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF"
    static let codec8Second = "000000000000002808010000016B40D9AD80010000000000000000000000000000000103021503010101425E100000010000F22A"
    static let codec8Third = "000000000000004308020000016B40D57B480100000000000000000000000000000001010101000000000000016B40D5C198010000000000000000000000000000000101010101000000020000252C"
    static let codec8E = "000000000000004A8E010000016B412CEE000100000000000000000000000000000000010005000100010100010011001D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A00000100002994"
    /// 2019-06-10, a day after the examples' records.
    let rules = DecodingRules(now: Date(timeIntervalSince1970: 1_560_250_000))

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = [], chars = Array(hex.utf8)[...]
        while chars.count >= 2 { out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16)!); chars = chars.dropFirst(2) }
        return out
    }

    func decoderAfterLogin() throws -> TeltonikaDecoder {
        var decoder = TeltonikaDecoder(), buffer = Self.bytes(Self.login)
        guard case .login(let imei)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no login"); return decoder }
        #expect(imei == "356307042441013")
        #expect(buffer.isEmpty)
        return decoder
    }

    @Test func crc16IBM_checkValue() {
        #expect(Teltonika.crc16IBM(Array("123456789".utf8)) == 0xBB3D)
    }

    @Test func codec8_firstWikiExample_fieldByField() throws {
        var decoder = try decoderAfterLogin(), buffer = Self.bytes(Self.codec8First)
        guard case .records(let records, let fixes)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no packet"); return }
        #expect(buffer.isEmpty)
        #expect(records.count == 1)
        let r = records[0]
        #expect(r.timestampMilliseconds == 1_560_161_086_000) // 0x16B40D8EA30: 2019-06-10T10:04:46Z
        #expect(r.priority == 1)
        #expect(r.longitude == 0 && r.latitude == 0 && r.altitude == 0 && r.angle == 0 && r.satellites == 0 && r.speedKilometersPerHour == 0)
        #expect(r.eventIOID == 1)
        #expect(r.io == [0x15: 3, 0x01: 1, 0x42: 0x5E0F, 0xF1: 0x601A, 0x4E: 0])
        #expect(fixes.fixes.count == 1 && fixes.rejected.isEmpty)
        #expect(fixes.fixes[0].device == "356307042441013")
        #expect(fixes.fixes[0].location.fixMode == .noFix) // 0 satellites
        #expect(Teltonika.ackReply(count: records.count) == [0, 0, 0, 1])
    }

    @Test func codec8_secondAndThirdWikiExamples_inOneStream() throws {
        var decoder = try decoderAfterLogin(), buffer = Self.bytes(Self.codec8Second + Self.codec8Third)
        guard case .records(let first, _)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no packet"); return }
        #expect(first.count == 1)
        #expect(first[0].timestampMilliseconds == 1_560_161_136_000)
        #expect(first[0].io == [0x15: 3, 0x01: 1, 0x42: 0x5E10])
        guard case .records(let second, let fixes)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no packet"); return }
        #expect(second.map(\.timestampMilliseconds) == [1_560_160_861_000, 1_560_160_879_000])
        #expect(second.map { $0.io[1] } == [0, 1])
        #expect(fixes.fixes.count == 2)
        #expect(buffer.isEmpty)
        #expect(try decoder.next(from: &buffer, rules: rules) == nil)
    }

    @Test func codec8E_wikiExample_fieldByField() throws {
        var decoder = try decoderAfterLogin(), buffer = Self.bytes(Self.codec8E)
        guard case .records(let records, _)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no packet"); return }
        #expect(records.count == 1)
        let r = records[0]
        #expect(r.timestampMilliseconds == 1_560_166_592_000)
        #expect(r.eventIOID == 1)
        #expect(r.io == [0x0001: 1, 0x0011: 0x1D, 0x0010: 0x015E2C88, 0x000B: 0x3544C87A, 0x000E: 0x1DD7E06A])
        #expect(r.variableIO.isEmpty)
    }

    /// The first example with a real GPS element (the wiki's field layout: lon, lat ×10⁻⁷,
    /// altitude m, angle °, satellites, speed km/h), CRC recomputed: 54.6872° N 25.2798° E.
    @Test func codec8_gpsElement_normalisedToDegreesAndMetresPerSecond() throws {
        var data = Array(Self.bytes(Self.codec8First)[8..<(8 + 0x36)])
        let gps: [UInt8] = [0x0F, 0x11, 0x1B, 0x0C, /* lon 252_779_276 */ 0x20, 0x98, 0x20, 0x20, /* lat 546_840_608 */
                            0x00, 0x7B, /* 123 m */ 0x00, 0xB4, /* 180° */ 0x09, /* 9 sats */ 0x00, 0x48 /* 72 km/h */]
        data.replaceSubrange(11..<26, with: gps)
        let crc = Teltonika.crc16IBM(data)
        var buffer: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x36] + data + [0, 0, UInt8(crc >> 8), UInt8(crc & 0xff)]
        var decoder = try decoderAfterLogin()
        guard case .records(_, let fixes)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no packet"); return }
        let l = try #require(fixes.fixes.first).location
        #expect(abs(l.coordinate.longitude - 25.2779276) < 1e-9) // degrees
        #expect(abs(l.coordinate.latitude - 54.6840608) < 1e-9)
        #expect(l.altitude == .meters(123))
        #expect(abs(l.speed!.metersPerSecond - 20) < 1e-12) // 72 km/h
        #expect(l.course?.degrees == 180)
        #expect(l.satelliteCount == 9)
    }

    @Test func packet_arrivingInPieces_waitsForTheWhole() throws {
        var decoder = try decoderAfterLogin(), buffer: [UInt8] = []
        let packet = Self.bytes(Self.codec8First)
        for (i, byte) in packet.enumerated() {
            buffer.append(byte)
            let frame = try decoder.next(from: &buffer, rules: rules)
            #expect((frame != nil) == (i == packet.count - 1))
        }
    }

    @Test func wrongCRC_isAChecksumErrorWithItsByte() throws {
        var decoder = try decoderAfterLogin(), buffer = Self.bytes(Self.codec8First)
        buffer[buffer.count - 1] ^= 1
        #expect { try decoder.next(from: &buffer, rules: rules) } throws: {
            ($0 as? TrackingProtocolError)?.code == .checksumMismatch && ($0 as? TrackingProtocolError)?.location == "byte \(17 + 8 + 0x36)"
        }
    }

    @Test func length4GB_isRefusedFromTheHeaderAlone() throws {
        var decoder = try decoderAfterLogin(), buffer: [UInt8] = [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect { try decoder.next(from: &buffer, rules: rules) } throws: { ($0 as? TrackingProtocolError)?.code == .frameTooLong }
    }

    @Test func recordBefore2000_isRejectedAloneWithItsRecord() throws {
        var data = Array(Self.bytes(Self.codec8First)[8..<(8 + 0x36)])
        data.replaceSubrange(2..<10, with: [0, 0, 0, 0xD1, 0x5C, 0x3B, 0x3C, 0x00]) // 1998-06-30
        let crc = Teltonika.crc16IBM(data)
        var buffer: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x36] + data + [0, 0, UInt8(crc >> 8), UInt8(crc & 0xff)]
        var decoder = try decoderAfterLogin()
        guard case .records(let records, let fixes)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no packet"); return }
        #expect(records.count == 1 && fixes.fixes.isEmpty)
        #expect(fixes.rejected.first?.code == .invalidTime)
        #expect(fixes.rejected.first?.location.hasPrefix("record 0") == true)
    }

    @Test func login_isTheWikisLoginBytes() {
        #expect(Teltonika.login(imei: "356307042441013") == Self.bytes(Self.login))
    }

    /// The wiki's third Codec 8 example (two records, one 1-byte IO element each) encoded from
    /// its decoded records is its bytes, CRC included.
    @Test func packet_ofTheWikisThirdExample_isItsBytes() throws {
        var decoder = try decoderAfterLogin(), buffer = Self.bytes(Self.codec8Third)
        guard case .records(let records, _)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no packet"); return }
        #expect(Teltonika.packet(records, extended: false) == Self.bytes(Self.codec8Third))
    }

    /// Every wiki example, and records with southern and western coordinates, a negative
    /// altitude, 8-byte IO values and Codec 8E's variable-length elements, read back as written.
    @Test func packets_readBackAsTheirRecords() throws {
        var decoder = try decoderAfterLogin()
        for (hex, extended) in [(Self.codec8First, false), (Self.codec8Second, false), (Self.codec8Third, false), (Self.codec8E, true)] {
            var buffer = Self.bytes(hex)
            guard case .records(let records, _)? = try decoder.next(from: &buffer, rules: rules) else { Issue.record("no packet"); return }
            var again = Teltonika.packet(records, extended: extended)
            guard case .records(let read, _)? = try decoder.next(from: &again, rules: rules) else { Issue.record("no packet"); return }
            #expect(read == records)
            #expect(again.isEmpty)
        }
        let south = TeltonikaRecord(timestampMilliseconds: 1_560_161_086_000, priority: 2, longitude: -70.6482651, latitude: -33.4372115,
                                    altitude: -12, angle: 359, satellites: 11, speedKilometersPerHour: 130, eventIOID: 0x0101,
                                    io: [0x10: 0xFF, 0x11: 0x100, 0x12: 0x1_0000, 0x13: 0x1_0000_0000, 0x14: .max], variableIO: [0x0200: [1, 2, 3]])
        for (record, extended) in [(south, true), (TeltonikaRecord(timestampMilliseconds: 1_560_161_087_000, longitude: -0.1, latitude: 51.5, satellites: 7,
                                                                   io: [0xF0: 1, 0x42: 12_345, 0x10: 0x1_0000_0000]), false)] {
            var bytes = Teltonika.packet([record, record], extended: extended)
            guard case .records(let read, _)? = try decoder.next(from: &bytes, rules: rules) else { Issue.record("no packet"); return }
            #expect(read == [record, record])
        }
    }

    @Test func truncatedRecord_isMalformedNotACrash() throws {
        // Claim 2 records in a packet that holds one; fix the trailing count and the CRC.
        var data = Array(Self.bytes(Self.codec8First)[8..<(8 + 0x36)])
        data[1] = 2; data[data.count - 1] = 2
        let crc = Teltonika.crc16IBM(data)
        var buffer: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0x36] + data + [0, 0, UInt8(crc >> 8), UInt8(crc & 0xff)]
        var decoder = try decoderAfterLogin()
        #expect { try decoder.next(from: &buffer, rules: rules) } throws: { ($0 as? TrackingProtocolError)?.code == .malformed }
    }
}
