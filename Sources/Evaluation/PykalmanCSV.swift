package import GeoCore
package import TrackFiltering
import Platform
import GeoBase

/// The CSV hand-over to `scripts/eval/pykalman_rts.py`, the outside reference RTS smoother:
/// our accepted fixes out, pykalman's smoothed positions back. Text only; the caller reads and
/// writes the files.
package enum PykalmanCSV {
    /// The smoother's input: a header comment with the model
    /// (`# acceleration_noise=…,initial_speed_sigma=…,assumed_speed_accuracy=…,assumed_course_accuracy=…,assumed_accuracy=…`),
    /// then `t,east,north,accuracy,speed,speed_accuracy,course,course_accuracy` per fix: seconds
    /// since the truth's start, plane metres in the truth's frame, m, m/s, degrees; empty cells
    /// for missing values.
    /// - Complexity: O(fixes).
    package static func input(_ fixes: [Location], truth: TruthTrack, parameters: KalmanParameters) -> String {
        var text = "# acceleration_noise=\(parameters.accelerationNoise),initial_speed_sigma=\(parameters.initialSpeedUncertainty.metersPerSecond)"
            + ",assumed_speed_accuracy=\(parameters.assumedSpeedAccuracy.metersPerSecond),assumed_course_accuracy=\(parameters.assumedCourseAccuracy)"
            + ",assumed_accuracy=\(parameters.assumedAccuracy.meters)\n"
        text += "t,east,north,accuracy,speed,speed_accuracy,course,course_accuracy\n"
        let t0 = truth.times[0]
        func cell(_ x: Double?) -> String { x.map { "\($0)" } ?? "" }
        for fix in fixes {
            let p = truth.frame.point(for: fix.coordinate)
            text += "\(fix.timestamp.timeIntervalSince(t0)),\(p.east),\(p.north),\(cell(fix.horizontalAccuracy?.meters)),"
                + "\(cell(fix.speed?.metersPerSecond)),\(cell(fix.speedAccuracy?.metersPerSecond)),"
                + "\(cell(fix.course?.degrees)),\(cell(fix.courseAccuracy?.degrees))\n"
        }
        return text
    }

    /// The smoother's output: `t,east,north` rows (comment and header lines skipped) as fixes.
    /// - Throws: `TrackFilteringError.invalidParameter` naming the first bad line (1-based).
    /// - Complexity: O(bytes).
    package static func smoothed(_ text: String, truth: TruthTrack) throws(TrackFilteringError) -> [Location] {
        var out: [Location] = []
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("t,") { continue }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count >= 3, let t = Double(cells[0]), let e = Double(cells[1]), let n = Double(cells[2]) else {
                throw TrackFilteringError(.invalidParameter, "line \(i + 1): expected t,east,north")
            }
            out.append(Location(coordinate: truth.frame.coordinate(east: e, north: n), timestamp: truth.times[0].addingTimeInterval(t)))
        }
        return out
    }
}
