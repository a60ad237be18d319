import Foundation
import Testing
import Evaluation
import GeoCore
import GeoTestSupport
import GPXCodec
import Positioning
import TrackFiltering

/// The evaluation tracks of `geo eval filters` (real GPX as truth, the seeded GNSS error model
/// on top): the fixed-lag smoother in windows of 50 fixes with the standard 256-fix lag gives
/// the whole-track smoother's result: the same fixes kept, each within 20 cm of it (the GNSS
/// noise is metres), and the same report. Windows of 50 put a window boundary every 50 kept fixes, twenty times as often as the
/// standard 1024; the largest gap measured is 15.6 cm (korita): its 10-minute stop, longer than
/// the lag, is held at zero velocity (`KalmanSmoother.stillVelocitySigma`) in the passes that
/// judge outliers, so a fix's weight there comes from all of the stop's fixes, of which a
/// window sees only part. 3.5 cm before that, 2.6 mm before the fitness preset judged outliers
/// with the acceleration noise estimated in each window
/// (`KalmanParameters.ProcessNoiseEstimation.judgingOutliers`).
/// (around-visnjan-with-car keeps 240 fixes, fewer than one lag: it has no window boundary.)
@Test(.onOwnThread, arguments: ["gpx/gpxpy/korita-zbevnica.gpx", "gpx/gpxpy/cerknicko-jezero.gpx", "traces/graphhopper-mm/test1.gpx"])
func fixedLagSmoother_matchesTheWholeTrackSmoother(_ path: String) throws {
    guard let url = try Fixtures.url(path) else { return }
    // The segment with the most timed points, as `geo eval filters` takes it.
    let document = try GPXReader.read(bytes: try Data(contentsOf: url))
    let segment = try #require(document.tracks.flatMap(\.segments).max { $0.points.filter { $0.time != nil }.count < $1.points.filter { $0.time != nil }.count })
    let fixes = segment.points.compactMap { Location(gpxPoint: $0) }
    let truth = try TruthTrack(resampling: fixes, stopDuration: .seconds(600))
    let window = KalmanSmoother.SmoothingWindow(core: 50, lag: KalmanSmoother.SmoothingWindow.standard.lag)
    for seed in 0..<3 as Range<UInt64> {
        let noisy = GNSSErrorModel(seed: seed).corrupt(truth).map { ($0.fix, Optional($0.receivedAt)) }
        let configuration = TrackFilterConfiguration.fitness
        let smoother = KalmanSmoother(parameters: try #require(configuration.kalman))
        var wholeReport = FilterReport(), windowedReport = FilterReport()
        var whole: [Location] = [], windowed: [Location] = []
        smoother.smoothing(noisy, rules: configuration.rules(), report: &wholeReport, window: .wholeTrack) { whole.append($0) }
        smoother.smoothing(noisy, rules: configuration.rules(), report: &windowedReport, window: window) { windowed.append($0) }
        #expect(whole.count > window.core + window.lag, "\(path): \(whole.count) fixes cross no window boundary")
        #expect(windowed.map(\.timestamp) == whole.map(\.timestamp), "\(path) seed \(seed): the same fixes kept")
        #expect(windowedReport == wholeReport, "\(path) seed \(seed)")
        let worst = zip(windowed, whole).map { $0.coordinate.distance(to: $1.coordinate).meters }.max() ?? 0
        #expect(worst < 0.2, "\(path) seed \(seed): \(worst) m apart") // metres
    }
}
