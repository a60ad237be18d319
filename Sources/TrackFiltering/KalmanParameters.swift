public import GeoCore
import Platform
public import GeoBase

/// The tunables of the constant-velocity Kalman filter and smoother.
public struct KalmanParameters: Hashable, Sendable {
    /// One-sigma white acceleration driving the model, m/s²: low values smooth more and
    /// follow turns and speed changes more slowly.
    public var accelerationNoise: Double
    /// The `accelerationNoise` values a user may give, m/s²: above 0 through 1,000.
    public static let accelerationNoises = ValidRange(above: 0, through: 1_000, unit: "m/s²")
    /// Squared Mahalanobis distance above which a position is an outlier (χ² with 2 degrees of
    /// freedom: 13.8 rejects 0.1 % of honest fixes).
    public var gateChiSquare: Double
    /// A longer silence between fixes restarts the filter at the next fix.
    public var maximumGap: Duration
    /// After this many outliers in a row that agree with each other the filter restarts at the
    /// latest fix (the track really jumped, e.g. out of a tunnel).
    public var maximumConsecutiveOutliers: Int
    /// Whether reported speed and course (Doppler) are fused as a velocity measurement.
    public var usesReportedVelocity: Bool
    /// The accuracy assumed for a fix that reports none (68 % radius).
    public var assumedAccuracy: Distance
    /// The speed accuracy assumed when a fix reports speed without one.
    public var assumedSpeedAccuracy: Speed
    /// The course accuracy assumed when a fix reports a course without one, degrees.
    public var assumedCourseAccuracy: Double
    /// One-sigma velocity uncertainty at a (re)start without a reported velocity.
    public var initialSpeedUncertainty: Speed
    /// Degrees of freedom ν of the Student-t position noise the RTS smoother assumes (heavy
    /// tails: a fix that neither neighbour explains loses its weight); nil: Gaussian noise, the
    /// plain RTS smoother. Lower is heavier-tailed; ν = 2 keeps honest fixes at weight ≈ 1 (E[dᵀR⁻¹d] ≈ 2).
    public var measurementDegreesOfFreedom: Double?
    /// Where the RTS smoother takes each step's acceleration noise from the fixes around it
    /// (`KalmanSmoother.processNoise(_:starts:)`, with `accelerationNoise` as the most it
    /// allows) instead of `accelerationNoise`. The online filter is not affected.
    public var estimatesProcessNoise: ProcessNoiseEstimation

    /// Where the smoother uses the acceleration noise it estimates from the fixes.
    public enum ProcessNoiseEstimation: Hashable, Sendable {
        /// Nowhere: `accelerationNoise` throughout.
        case never
        /// To judge outliers (the Student-t weights, and which fixes are dropped); the smoothed
        /// positions use `accelerationNoise`. For a preset that knows the mode of travel
        /// (`TrackFilterConfiguration.fitness`): the estimate is the track's typical motion,
        /// so a jump between sparse fixes stands out against it, while the turns that the
        /// estimate (a quantile) calls rare keep the agility the preset allows.
        case judgingOutliers
        /// In every pass: for a model that does not know the mode of travel
        /// (`TrackFilterConfiguration.default`).
        case everywhere
    }

    public init(
        accelerationNoise: Double = 1.0,
        gateChiSquare: Double = 13.8,
        maximumGap: Duration = .seconds(30),
        maximumConsecutiveOutliers: Int = 4,
        usesReportedVelocity: Bool = true,
        assumedAccuracy: Distance = .meters(10),
        assumedSpeedAccuracy: Speed = .metersPerSecond(1),
        assumedCourseAccuracy: Double = 15,
        initialSpeedUncertainty: Speed = .metersPerSecond(5),
        measurementDegreesOfFreedom: Double? = 2,
        estimatesProcessNoise: ProcessNoiseEstimation = .never
    ) {
        self.accelerationNoise = accelerationNoise
        self.gateChiSquare = gateChiSquare
        self.maximumGap = maximumGap
        self.maximumConsecutiveOutliers = maximumConsecutiveOutliers
        self.usesReportedVelocity = usesReportedVelocity
        self.assumedAccuracy = assumedAccuracy
        self.assumedSpeedAccuracy = assumedSpeedAccuracy
        self.assumedCourseAccuracy = assumedCourseAccuracy
        self.initialSpeedUncertainty = initialSpeedUncertainty
        self.measurementDegreesOfFreedom = measurementDegreesOfFreedom
        self.estimatesProcessNoise = estimatesProcessNoise
    }

    /// - Throws: `TrackFilteringError` with `.invalidParameter` for a non-positive or NaN value.
    public func validate() throws(TrackFilteringError) {
        let checks: [(String, Double)] = [
            ("accelerationNoise", accelerationNoise), ("gateChiSquare", gateChiSquare),
            ("maximumGap", maximumGap.seconds), ("assumedAccuracy", assumedAccuracy.meters),
            ("assumedSpeedAccuracy", assumedSpeedAccuracy.metersPerSecond),
            ("assumedCourseAccuracy", assumedCourseAccuracy),
            ("initialSpeedUncertainty", initialSpeedUncertainty.metersPerSecond),
            ("measurementDegreesOfFreedom", measurementDegreesOfFreedom ?? 1),
        ]
        for (name, value) in checks where !(value > 0) {
            throw TrackFilteringError(.invalidParameter, "Kalman \(name) must be positive, got \(value)")
        }
        if maximumConsecutiveOutliers < 1 {
            throw TrackFilteringError(.invalidParameter, "Kalman maximumConsecutiveOutliers must be at least 1")
        }
    }
}

/// What the filter did with one fix.
public enum KalmanResult: Hashable, Sendable {
    /// The filter (re)started at this fix: the first one, after a gap, or after repeated outliers.
    case started(Location)
    /// The fix corrected the running estimate.
    case updated(Location)
    /// The fix failed the innovation gate and was ignored; the squared Mahalanobis distance.
    case rejected(mahalanobisSquared: Double)
    /// The fix is timestamped before the filter's time and was ignored.
    case outOfOrder

    /// The estimate after this fix, if it was used.
    public var estimate: Location? {
        switch self {
        case .started(let l), .updated(let l): l
        case .rejected, .outOfOrder: nil
        }
    }
}
