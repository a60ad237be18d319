import GeoCore
import Compass
import NMEACodec
import GeoBase

/// Turns gpsd's stream of reports into one fix per receiver epoch (one measurement time).
///
/// gpsd writes a TPV whenever a sentence changes its fix, so one epoch can arrive as several
/// TPVs with the same `time`, each more complete than the last (the first, from an RMC, often
/// has no error estimate); gpsd's own final word on the epoch is its last TPV (the one its
/// regression `.chk` files end the epoch with). The assembler merges every report of the
/// pending epoch — later TPV fields over earlier ones, and the one-sigma errors of a GST with
/// the epoch's time where the TPVs lack them — and emits the epoch only when it is complete:
/// - a TPV with another time starts the next epoch (`add(_:)` returns the finished one);
/// - a TPV without a fix (mode 0 or 1) ends the epoch and reports the loss;
/// - gpsd's reporting cycle ends: gpsd writes a cycle's reports in one burst and then waits
///   for the receiver, so the source calls `finish()` when the stream goes quiet for
///   `GPSDSource.cycleEndSilence`, or ends.
/// Reports for an epoch already emitted (a late GST, a straggling TPV) change nothing, so an
/// epoch is never delivered twice. SKY reports are not merged: `Location` has no DOPs, and gpsd
/// (3.22) sends SKY without a time, after each partial satellite list, so neither its `uSat`
/// nor its epoch is certain. ATT reports (gpsd's attitude: a true heading from `HDT`/`THS`, a
/// compass's magnetic heading and status) are delivered at once as headings, stamped with their
/// own time or, lacking one (gpsd 3.22 sends ATT from HDT without a time), the epoch's.
struct GPSDEpochAssembler {
    /// The merged TPV of the epoch being assembled.
    private var tpv: GPSDMessage.TPV?
    private var gst: GPSDMessage.GST?
    /// The time of the last epoch emitted, so its late reports are ignored.
    private var finishedTime: String?

    /// Whether an epoch waits to be finished.
    var isPending: Bool { tpv != nil }

    /// Takes one report; returns what it completes, in order (the previous epoch's fix and/or a loss).
    mutating func add(_ message: GPSDMessage) -> [PositionSourceEvent] {
        switch message {
        case .tpv(let report):
            guard report.mode >= 2 else { return (finish().map { [$0] } ?? []) + [.lost] }
            guard let time = report.time, time != finishedTime else { return [] }
            if var pending = tpv, pending.time == time {
                pending.update(with: report)
                tpv = pending
                return []
            }
            let done = finish()
            tpv = report
            return done.map { [$0] } ?? []
        case .gst(let report):
            if let pendingTime = tpv?.time, report.time == pendingTime { gst = report }
            return []
        case .att(let report):
            guard let time = (report.time ?? tpv?.time ?? finishedTime).flatMap(ISO8601Time.date(from:)),
                  let heading = try? Heading(report, timestamp: time) else { return [] }
            return [.heading(heading)]
        default:
            return []
        }
    }

    /// Ends the pending epoch (gpsd's cycle ended, or the stream did) and returns its fix, if
    /// it has a position.
    mutating func finish() -> PositionSourceEvent? {
        guard let pending = tpv else { return nil }
        defer {
            tpv = nil
            gst = nil
        }
        finishedTime = pending.time
        guard var location = pending.location else { return nil }
        if location.horizontalAccuracy == nil, let lat = gst?.lat, let lon = gst?.lon {
            // GST gives one-sigma errors per axis, the per-axis form `TPV.location` uses for epx/epy.
            location.horizontalAccuracy = .meters(((lat * lat + lon * lon) / 2).squareRoot())
        }
        if location.verticalAccuracy == nil, location.fixMode == .threeDimensional, let alt = gst?.alt {
            location.verticalAccuracy = .meters(alt)
        }
        return .location(location)
    }
}

extension GPSDMessage.TPV {
    /// Takes a later report of the same epoch: its values win, and what it lacks is kept.
    mutating func update(with later: GPSDMessage.TPV) {
        let earlier = self
        self = later
        func keep<T>(_ field: WritableKeyPath<GPSDMessage.TPV, T?>) {
            if self[keyPath: field] == nil { self[keyPath: field] = earlier[keyPath: field] }
        }
        for field: WritableKeyPath<GPSDMessage.TPV, Double?> in [
            \.ept, \.lat, \.lon, \.altHAE, \.altMSL, \.alt, \.epx, \.epy, \.epv, \.track, \.magtrack, \.magvar,
            \.speed, \.climb, \.epd, \.eps, \.epc, \.geoidSep, \.eph, \.sep, \.dgpsAge,
        ] { keep(field) }
        keep(\.status)
        keep(\.dgpsSta)
        keep(\.device)
    }
}
