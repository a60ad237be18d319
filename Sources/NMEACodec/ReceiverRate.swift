import GeoCore

/// The commands that set how often a GNSS receiver computes a fix, for the two protocol
/// families most serial NMEA receivers speak. A receiver ignores the other family's command
/// (a u-blox receiver drops an unknown `$PMTK` sentence, an MTK one a UBX frame), so a source
/// that does not know its receiver sends both (`setFixInterval(_:)`), as gpsd probes.
public enum ReceiverRate {
    /// u-blox UBX-CFG-RATE measurement periods, milliseconds: 25 ms (40 Hz) to the largest U2.
    public static let ubxMeasurementPeriods = 25...65_535
    /// MediaTek PMTK220 fix intervals, milliseconds (MTK NMEA packet manual: 100 ms to 10 s).
    public static let mtkFixIntervals = 100...10_000

    /// UBX-CFG-RATE (class 0x06, id 0x08; u-blox 8 / M8 Receiver Description §32.10.23): the
    /// measurement period `interval` in ms, clamped to `ubxMeasurementPeriods`, one navigation
    /// solution per measurement, aligned to GPS time; little-endian, framed by the sync bytes
    /// 0xB5 0x62 and the 8-bit Fletcher checksum over class, id, length and payload (§32.4).
    public static func ubxCFGRate(interval: Duration) -> [UInt8] {
        let period = UInt16(clamping: milliseconds(interval, within: ubxMeasurementPeriods))
        let payload: [UInt16] = [period, 1, 1] // measRate ms, navRate cycles, timeRef GPS
        var frame: [UInt8] = [0x06, 0x08, 6, 0]
        for field in payload { frame += [UInt8(field & 0xFF), UInt8(field >> 8)] }
        var a: UInt8 = 0, b: UInt8 = 0
        for byte in frame {
            a &+= byte
            b &+= a
        }
        return [0xB5, 0x62] + frame + [a, b]
    }

    /// `$PMTK220,<ms>*hh` CR LF (MTK's SET_NMEA_UPDATERATE): the fix interval in ms, clamped to
    /// `mtkFixIntervals`.
    public static func pmtk220(interval: Duration) -> [UInt8] {
        Array(NMEAEncoder.finish("PMTK220,\(milliseconds(interval, within: mtkFixIntervals))").utf8)
    }

    /// Both commands, UBX first: what to send a receiver of unknown make.
    public static func setFixInterval(_ interval: Duration) -> [UInt8] {
        ubxCFGRate(interval: interval) + pmtk220(interval: interval)
    }

    /// `interval` in whole milliseconds (rounded), clamped into `range`.
    private static func milliseconds(_ interval: Duration, within range: ClosedRange<Int>) -> Int {
        let ms = interval.seconds * 1_000
        guard ms.isFinite, ms > Double(range.lowerBound) else { return range.lowerBound }
        return ms >= Double(range.upperBound) ? range.upperBound : Int(ms.rounded())
    }
}
