import GeoBase
package import GeoCore
import TrackFiltering
package import Platform

/// One fix of a corrupted track, with when it reached the app and what was done to it.
package struct NoisyFix: Hashable, Sendable {
    /// What the injector did to a fix.
    package enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Ordinary receiver noise only.
        case nominal
        /// A multipath jump of tens of metres.
        case multipath
        /// Inside the noisy warm-up after start.
        case warmUp
        /// A cached position from minutes ago delivered with a fresh timestamp at start.
        case cachedAtStart
        /// An old fix delivered again late, with its old timestamp.
        case stale
    }

    /// The fix as delivered.
    package var fix: Location
    /// When it reached the app.
    package var receivedAt: Date
    /// What was done to it.
    package var kind: Kind
}

/// Realistic GNSS error for evaluating filters on a clean truth track, deterministic per seed.
///
/// Noise: a first-order Gauss–Markov process per axis (time-correlated error, Gelb, *Applied
/// Optimal Estimation*, 1974, §3.8) plus white noise; multipath bursts; a warm-up whose error
/// decays from tens of metres; cached fixes with fresh timestamps at start (the seed article's
/// "5-minute-old position with the current time"); stale re-deliveries; swapped delivery order;
/// a slow extra drift while the device is still (indoor multipath). Doppler speed and course
/// come from the truth with their own noise, as receivers report them. Reported accuracies
/// follow the nominal noise, so outliers arrive with optimistic radii, as real ones do.
package struct GNSSErrorModel: Hashable, Sendable {
    package var seed: UInt64 = 20_240_601
    /// Per-axis σ of the correlated error, metres, and its correlation time.
    package var correlatedSigma = 2.5
    package var correlationTime: Duration = .seconds(30)
    /// Per-axis σ of the white error, metres.
    package var whiteSigma = 2.0
    /// Chance per fix that a multipath burst starts, its size in metres and its length in fixes.
    package var multipathProbability = 0.02
    package var multipathRange: ClosedRange<Double> = 25...120
    package var multipathBurstLength: ClosedRange<Int> = 1...3
    /// The 68 % radius every fix claims, jumps included; nil: each fix claims its nominal noise,
    /// scattered log-normally, and 30 % of multipath bursts claim three times that.
    package var claimedAccuracy: Distance?
    /// Whether fixes carry Doppler speed and course (GPX files from watches mostly do not).
    package var reportsVelocity = true
    /// The noisy start: duration and initial extra error, metres.
    package var warmUp: Duration = .seconds(20)
    package var warmUpError = 60.0
    /// Cached positions delivered with fresh timestamps at start, and how far away they are.
    package var cachedFixesAtStart = 3
    package var cachedOffsetRange: ClosedRange<Double> = 300...800
    /// Chance per fix of a stale re-delivery, and its age in seconds.
    package var staleProbability = 0.01
    package var staleAgeRange: ClosedRange<Double> = 20...120
    /// Chance per fix that it is delivered after the next one.
    package var outOfOrderProbability = 0.01
    /// Extra per-axis σ and correlation time of the drift while still.
    package var stationaryDriftSigma = 4.0
    package var stationaryDriftTime: Duration = .seconds(120)
    /// Doppler speed noise (m/s) and course noise (degrees), one sigma.
    package var speedSigma = 0.15
    package var courseSigma = 4.0
    /// Delivery latency, seconds.
    package var latency = 0.3
    /// Seconds between fixes, drawn uniformly per fix and rounded to the truth's samples (an
    /// irregular logger); nil: every truth sample is a fix.
    package var sampleIntervals: ClosedRange<Double>?
    /// Whether each fix of a multipath burst jumps anew (size and direction drawn again) rather
    /// than the whole burst sharing one offset.
    package var redrawsBurstJumps = false
    /// Whether jumps lie along the truth's direction of travel, ahead or behind (they look like
    /// a change of speed, not a sidestep); else in any direction.
    package var jumpsAlongTrack = false

    package init(seed: UInt64 = 20_240_601) { self.seed = seed }

    /// The sparse hike of issue 12 §4: correlated noise of 6 m (horizontal RMS: a first-order
    /// Gauss–Markov process of 4 m per axis with a 60 s correlation time, plus 1.5 m white per
    /// axis), 2 % single-fix jumps of 60–200 m, every fix (jumps too) claiming 8 m, no Doppler,
    /// and none of the start-up, stale, reordering or stillness faults.
    package static func sparseHike(seed: UInt64) -> GNSSErrorModel {
        var m = GNSSErrorModel(seed: seed)
        m.correlatedSigma = 4
        m.correlationTime = .seconds(60)
        m.whiteSigma = 1.5
        m.multipathProbability = 0.02
        m.multipathRange = 60...200
        m.multipathBurstLength = 1...1
        m.claimedAccuracy = .meters(8)
        m.reportsVelocity = false
        m.warmUp = .zero
        m.cachedFixesAtStart = 0
        m.staleProbability = 0
        m.outOfOrderProbability = 0
        m.stationaryDriftSigma = 0
        return m
    }

    /// This model with the correlated and white noise scaled together so that their horizontal
    /// RMS is `rms` metres (√2 × the per-axis σ of both).
    package func withNoise(horizontalRMS rms: Double) -> GNSSErrorModel {
        var m = self
        let current = (2 * (correlatedSigma * correlatedSigma + whiteSigma * whiteSigma)).squareRoot()
        guard current > 0 else { return m }
        m.correlatedSigma *= rms / current
        m.whiteSigma *= rms / current
        return m
    }

    /// Corrupts a truth track sampled at a steady rate (see `TruthTrack`).
    /// - Complexity: O(n).
    package func corrupt(_ truth: TruthTrack) -> [NoisyFix] {
        var rng = SplitMix64(seed: seed)
        let n = truth.count
        guard n > 0 else { return [] }
        let sigmaNominal = (correlatedSigma * correlatedSigma + whiteSigma * whiteSigma).squareRoot()
        let radiusFactor = 1 / KalmanSmoother.radiusToSigma
        var gm = Vec2.zero, drift = Vec2.zero
        let tau = correlationTime.seconds, driftTau = stationaryDriftTime.seconds
        let warm = warmUp.seconds
        let warmDirection = rng.uniform(0, 1) * 2 * .pi
        let cachedDistance = cachedOffsetRange.lowerBound + rng.uniform(0, 1) * (cachedOffsetRange.upperBound - cachedOffsetRange.lowerBound)
        let cachedDirection = rng.uniform(0, 1) * 2 * .pi
        var burst = 0
        var burstOffset = Vec2.zero
        var stillFor = 0.0
        var out: [NoisyFix] = []
        out.reserveCapacity(n + n / 50)
        var k = 0
        var previousSample: Int?
        while k < n {
            defer {
                previousSample = k
                k += nextStep(&rng, interval: truth.interval)
            }
            let dt = previousSample.map { Double(k - $0) * truth.interval } ?? truth.interval
            let phi = exp(-dt / tau)
            let q = (1 - phi * phi).squareRoot() * correlatedSigma
            gm = Vec2(x: phi * gm.x + q * rng.gaussian(), y: phi * gm.y + q * rng.gaussian())
            let speed = truth.speeds[k]
            stillFor = speed < 0.05 ? stillFor + dt : 0
            let dphi = exp(-dt / driftTau)
            let dq = (1 - dphi * dphi).squareRoot() * stationaryDriftSigma
            drift = Vec2(x: dphi * drift.x + dq * rng.gaussian(), y: dphi * drift.y + dq * rng.gaussian())
            let stillWeight = min(stillFor / 30, 1)
            var error = gm + Vec2(x: whiteSigma * rng.gaussian(), y: whiteSigma * rng.gaussian()) + drift * stillWeight
            var accuracy = radiusFactor * sigmaNominal * exp(0.15 * rng.gaussian())
            var kind = NoisyFix.Kind.nominal
            let elapsed = Double(k) * truth.interval
            if elapsed < warm {
                let extra = warmUpError * exp(-3 * elapsed / warm)
                error = error + Vec2(x: sin(warmDirection), y: cos(warmDirection)) * extra
                    + Vec2(x: rng.gaussian(), y: rng.gaussian()) * (extra / 2)
                accuracy += extra / 2
                kind = .warmUp
            }
            if burst == 0, rng.uniform(0, 1) < multipathProbability {
                let lengths = multipathBurstLength.upperBound - multipathBurstLength.lowerBound + 1
                burst = multipathBurstLength.lowerBound + Int(rng.uniform(0, 1) * Double(lengths))
                burstOffset = jump(truth: truth, index: k, rng: &rng)
                if rng.uniform(0, 1) < 0.3 { accuracy *= 3 }
            } else if burst > 0, redrawsBurstJumps {
                burstOffset = jump(truth: truth, index: k, rng: &rng)
            }
            if burst > 0 {
                error = error + burstOffset
                burst -= 1
                kind = .multipath
            }
            if k < cachedFixesAtStart {
                error = Vec2(x: sin(cachedDirection), y: cos(cachedDirection)) * cachedDistance + error * 0.2
                accuracy = radiusFactor * sigmaNominal * 2
                kind = .cachedAtStart
            }
            if let claimedAccuracy { accuracy = claimedAccuracy.meters }
            let t = truth.times[k]
            var fix = makeFix(truth: truth, index: k, error: error, accuracy: accuracy, rng: &rng)
            fix.timestamp = t
            out.append(NoisyFix(fix: fix, receivedAt: t.addingTimeInterval(latency), kind: kind))
            if k > 0, rng.uniform(0, 1) < staleProbability {
                let age = staleAgeRange.lowerBound + rng.uniform(0, 1) * (staleAgeRange.upperBound - staleAgeRange.lowerBound)
                let j = max(0, k - Int((age / truth.interval).rounded()))
                var old = makeFix(truth: truth, index: j,
                                  error: Vec2(x: whiteSigma * rng.gaussian(), y: whiteSigma * rng.gaussian()) + gm,
                                  accuracy: radiusFactor * sigmaNominal, rng: &rng)
                old.timestamp = truth.times[j]
                out.append(NoisyFix(fix: old, receivedAt: t.addingTimeInterval(latency), kind: .stale))
            }
        }
        // Swapped deliveries: the later fix arrives first; arrival times stay increasing.
        var i = 1
        while i < out.count - 1 {
            if rng.uniform(0, 1) < outOfOrderProbability {
                let firstArrival = out[i].receivedAt
                out.swapAt(i, i + 1)
                out[i + 1].receivedAt = out[i].receivedAt
                out[i].receivedAt = firstArrival
                i += 2
            } else {
                i += 1
            }
        }
        return out
    }

    /// Samples to the next fix: 1, or an interval drawn from `sampleIntervals`.
    private func nextStep(_ rng: inout SplitMix64, interval: Double) -> Int {
        guard let range = sampleIntervals else { return 1 }
        let seconds = range.lowerBound + rng.uniform(0, 1) * (range.upperBound - range.lowerBound)
        return max(1, Int((seconds / interval).rounded()))
    }

    /// One multipath offset: a size from `multipathRange`, in a random direction, or along the
    /// truth's course at sample `index` (ahead or behind) with `jumpsAlongTrack`.
    private func jump(truth: TruthTrack, index k: Int, rng: inout SplitMix64) -> Vec2 {
        let m = multipathRange.lowerBound + rng.uniform(0, 1) * (multipathRange.upperBound - multipathRange.lowerBound)
        let a = rng.uniform(0, 1) * 2 * .pi
        guard jumpsAlongTrack else { return Vec2(x: sin(a) * m, y: cos(a) * m) }
        let course = truth.courses[k] * .pi / 180
        let sign: Double = a < .pi ? 1 : -1
        return Vec2(x: sin(course), y: cos(course)) * (m * sign)
    }

    private func makeFix(truth: TruthTrack, index k: Int, error: Vec2, accuracy: Double, rng: inout SplitMix64) -> Location {
        let p = truth.points[k] + error
        let speed = truth.speeds[k]
        let reported = max(0, speed + speedSigma * rng.gaussian())
        var course: Bearing?
        var courseAccuracy: Angle?
        if speed > 0.5 {
            course = Bearing(degrees: truth.courses[k] + courseSigma * rng.gaussian())
            courseAccuracy = .degrees(2 * courseSigma)
        }
        guard reportsVelocity else {
            return Location(coordinate: truth.frame.coordinate(east: p.x, north: p.y), timestamp: truth.times[k],
                            horizontalAccuracy: Distance(meters: accuracy))
        }
        return Location(
            coordinate: truth.frame.coordinate(east: p.x, north: p.y), timestamp: truth.times[k],
            horizontalAccuracy: Distance(meters: accuracy),
            speed: Speed(metersPerSecond: reported), speedAccuracy: Speed(metersPerSecond: 2 * speedSigma),
            course: course, courseAccuracy: courseAccuracy)
    }
}

