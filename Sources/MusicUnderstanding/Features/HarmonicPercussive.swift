import Foundation

/// Settings of the harmonic/percussive/residual separation computed from the shared STFT.
public struct HarmonicPercussiveConfiguration: Sendable, Hashable, Codable {
    /// Length in STFT frames of the median filter across time that enhances harmonic (steady)
    /// components. Default 17 (about 200 ms at 86 frames/s; Fitzgerald 2010 uses 17). Even
    /// values are rounded up to the next odd one. The output is delayed by half of it.
    public var harmonicMedianLength: Int = 17
    /// Length in bins of the median filter across frequency that enhances percussive
    /// (broadband) components. Default 17 (±86 Hz at the 10.8 Hz bins; Fitzgerald 2010).
    /// Even values are rounded up to the next odd one.
    public var percussiveMedianLength: Int = 17
    /// Separation factor β of Driedger, Müller & Disch (2014): a bin is harmonic when its
    /// time-median exceeds β × its frequency-median, percussive when the frequency-median
    /// exceeds β × the time-median, residual otherwise. Default 2 (the value the paper uses for
    /// the first separation stage; 1 gives Fitzgerald's binary split with no residual). Values
    /// below 1 are treated as 1.
    public var separationFactor: Float = 2
    /// Highest frequency separated, Hz; bins above it are ignored. Default 11 000 (the whole
    /// spectrum of the 22.05 kHz signal but the last few bins).
    public var maxFrequency: Double = 11_000
    /// Inner band edges in Hz, ascending: the bands are `0 ..< edges[0]`, `edges[0] ..< edges[1]`,
    /// ..., `edges.last ..< maxFrequency`. Default 120, 250, 2000, 5000: sub-bass (kick
    /// fundamentals), bass, low-mid (most fundamentals and vocals), high-mid, high (cymbals,
    /// hi-hats, sibilance). Edges outside `0 ..< maxFrequency` are dropped.
    public var bandEdges: [Double] = [120, 250, 2000, 5000]
    /// STFT frames mean-pooled into one stored vector. Default 4 (46 ms, 21.5 vectors/s):
    /// `3 × bands × 4` bytes per vector, 4.7 MB per hour of audio with the 5 default bands.
    public var framesPerVector: Int = 4
    /// STFT frames averaged (in power) into one separated frame. Default 2 (43 separated frames
    /// per second, 23 ms each: the hop of Fitzgerald's 2010 examples at 44.1 kHz). The median
    /// lengths and the pooling stay in STFT frames, so the time median spans the same ~200 ms
    /// with 9 separated frames. Power averaging keeps every frame's energy (an onset is never
    /// skipped, unlike decimation, which let kick-drum tails read as bass). A value that does not
    /// divide `framesPerVector` is treated as 1.
    public var framesPooled: Int = 2
    /// Bins are pooled in frequency (power sums) into groups about `relativeBandwidth × f` wide
    /// and never narrower than one bin: a constant-Q grid above the frequency where `f ×
    /// relativeBandwidth` reaches the bin width (about 540 Hz with the default 0.02, i.e. roughly
    /// 35 groups per octave) and the plain bins below it, so bass and kick fundamentals keep the
    /// full 10.8 Hz resolution. Groups never straddle a band edge. Default 0.02: about 200 groups
    /// up to 11 kHz instead of 1 021 bins. The frequency median's `percussiveMedianLength` then
    /// counts groups, so it spans more hertz high up, where partials are sparse in the bins anyway.
    /// 0 separates every bin.
    public var relativeBandwidth: Double = 0.02

    /// The default configuration.
    public init() {}
}

/// Energy of the harmonic, percussive and residual parts of the signal in a few frequency
/// bands over time: the input of instrument activity (drums vs bass vs other) and pace
/// (percussive energy).
///
/// Method: median-filtering separation (D. Fitzgerald, "Harmonic/percussive separation using
/// median filtering", DAFx 2010, sec. 2-3) extended with a residual (J. Driedger, M. Müller &
/// S. Disch, "Extending harmonic-percussive separation of audio signals", ISMIR 2014, sec. 2):
/// for each bin of the magnitude spectrogram `X`, `H` is the median of `X` over
/// `harmonicMedianLength` frames centred on it (steady partials survive, onsets are removed)
/// and `P` the median over `percussiveMedianLength` bins centred on it (broadband hits survive,
/// partials are removed). The binary masks are harmonic where `H > β·P`, percussive where
/// `P > β·H` and residual elsewhere (noise-like
/// parts, vibrato, transients of tonal notes); the energy `X²` of each bin goes to the component
/// whose mask holds it. Medians near the spectrum's and the signal's edges use the available
/// neighbours only.
///
/// Energies are normalised power (magnitudes scaled by `4 / frameSize`, so a full-scale sine's
/// peak bin has power 1 and its main lobe about 1.5), summed over the bins of each band and
/// averaged over the frames of each vector; linear, not compressed. The separated spectrogram
/// itself is not kept.
public struct HarmonicPercussiveFeatures: Sendable {
    /// Vectors per second (the STFT frame rate divided by `framesPerVector`).
    public var frameRate: Double
    /// STFT frames pooled into each vector; vector `i` covers frames
    /// `i * framesPerVector ..< (i + 1) * framesPerVector` (the last one possibly fewer).
    public var framesPerVector: Int
    /// All band edges in Hz, ascending, from 0 to the upper limit: band `b` spans
    /// `bandEdges[b] ..< bandEdges[b + 1]`; `bandCount + 1` values.
    public var bandEdges: [Double]
    /// Harmonic energy, `bandCount` per vector, vector-major, lowest band first.
    public var harmonic: [Float]
    /// Percussive energy, `bandCount` per vector, vector-major.
    public var percussive: [Float]
    /// Residual energy, `bandCount` per vector, vector-major.
    public var residual: [Float]

    /// Creates the features from their parts.
    public init(
        frameRate: Double, framesPerVector: Int, bandEdges: [Double], harmonic: [Float],
        percussive: [Float], residual: [Float]
    ) {
        self.frameRate = frameRate
        self.framesPerVector = framesPerVector
        self.bandEdges = bandEdges
        self.harmonic = harmonic
        self.percussive = percussive
        self.residual = residual
    }

    /// Number of frequency bands.
    public var bandCount: Int { max(0, bandEdges.count - 1) }
    /// Number of vectors.
    public var count: Int { bandCount > 0 ? harmonic.count / bandCount : 0 }

    /// Start time in seconds of the span vector `i` summarises (its first frame's centre).
    public func startTime(ofVector i: Int) -> Double { Double(i) / frameRate }

    /// One component as a frame feature (for `FrameFeature.aggregated(between:using:)`); each
    /// vector spans its frames' centres ± half a hop.
    public func feature(_ component: KeyPath<HarmonicPercussiveFeatures, [Float]>) -> FrameFeature {
        FrameFeature(
            values: self[keyPath: component], dimension: bandCount, frameRate: frameRate,
            startTime: -0.5 / (frameRate * Double(framesPerVector)))
    }
}

/// Separates each STFT frame into harmonic, percussive and residual energy, streaming.
///
/// The separation runs on a reduced spectrogram: `framesPooled` STFT frames averaged in power,
/// and bins pooled into the constant-Q groups of `relativeBandwidth` (the magnitude of a
/// group is the square root of its mean power over the pooled frames, summed over its bins, so
/// the band energies are those of the full spectrogram). Keeps a ring buffer of the last
/// `harmonicMedianLength / framesPooled + 1` separated frames (groups up to `maxFrequency` plus
/// half the frequency filter) and, per group, the values of the current time window in sorted
/// order (a few kB with the defaults). Separated frame `i` is decided once frame
/// `i + timeHalf` has arrived (a 93 ms delay with the defaults; `finish()` decides the last
/// frames with the truncated window).
///
/// Both medians are running medians over sorted windows: per group and frame, the time window
/// drops its oldest value and takes the new one (a binary search and a short shift in a sorted
/// array), and within the frame the frequency window slides along the groups the same way.
/// Nothing is allocated per frame. With the defaults (2 frames, about 200 groups instead of
/// 1 021 bins) the separation costs about a tenth of separating every bin of every frame.
final class HarmonicPercussiveAccumulator: SpectralFrameConsumer {
    private let configuration: FeatureConfiguration
    private let settings: HarmonicPercussiveConfiguration
    private let timeHalf: Int
    private let freqHalf: Int
    private let beta: Float
    private let maxBin: Int  // last group separated
    private let storedBins: Int  // groups kept per frame in the ring
    private let ringLength: Int  // 2 * timeHalf + 2: the window plus the frame replacing its oldest
    private let timeWidth: Int  // 2 * timeHalf + 1: capacity of each group's sorted window
    private let framesPerVector: Int  // separated frames per vector
    private let powerScale: Float
    private let edges: [Double]
    private let bandOfBin: [Int]  // band index of groups 0...maxBin
    private let bandCount: Int
    private let groupStart: [Int]  // first STFT bin of each stored group, plus the end
    private let pool: Int  // STFT frames per separated frame

    private var ring: [Float]
    private var sortedTime: [Float]  // (maxBin + 1) × timeWidth, group-major, each sorted ascending
    private var windowLow = 0  // frames windowLow...windowHigh are in sortedTime
    private var windowHigh = -1
    private var sortedValid = true  // whether sortedTime holds frames windowLow...windowHigh
    private var timeMedian: [Float]  // the time median of each group at the current centre
    private var belowCount: [Int32]  // per group: neighbours v with h > β·v (frequency window)
    private var aboveCount: [Int32]  // per group: neighbours v with v > β·h
    private var framesSeen = 0
    private var pending: [Float]  // power sums of the groups over the frames being pooled
    private var pendingFrames = 0
    private var ringFrames: [Float]  // STFT frames pooled into each ring slot
    private var nextCentre = 0
    // Pooling accumulators (3 × bandCount: harmonic, percussive, residual) and outputs.
    private var pooled: [Float]
    private var pooledFrames = 0
    private var pooledSTFTFrames: Float = 0
    private var harmonic = ChunkedFloats()
    private var percussive = ChunkedFloats()
    private var residual = ChunkedFloats()

    init(configuration: FeatureConfiguration, settings: HarmonicPercussiveConfiguration = .init()) {
        self.configuration = configuration
        self.settings = settings
        // The time pooling must divide the vectors, so that every vector pools the same frames.
        let requested = max(1, settings.framesPooled), perVector = max(1, settings.framesPerVector)
        pool = perVector % requested == 0 ? requested : 1
        timeHalf = max(0, settings.harmonicMedianLength / 2 / pool)
        freqHalf = max(0, settings.percussiveMedianLength / 2)
        beta = max(1, settings.separationFactor.isFinite ? settings.separationFactor : 1)
        let bins = configuration.binCount
        let binWidth = configuration.binWidth
        let top = min(max(settings.maxFrequency, binWidth), configuration.sampleRate / 2)
        let lastBin = max(0, min(bins - 1, Int((top / binWidth).rounded(.down))))
        timeWidth = 2 * timeHalf + 1
        ringLength = timeWidth + 1
        framesPerVector = max(1, perVector / pool)
        let scale = 4 / Float(configuration.frameSize)
        powerScale = scale * scale
        var e: [Double] = [0]
        for x in settings.bandEdges.filter({ $0.isFinite }).sorted() where x > (e.last ?? 0) && x < top { e.append(x) }
        e.append(top)
        edges = e
        bandCount = e.count - 1
        // Constant-Q groups of bins, broken at the band edges; beyond the last separated bin the
        // grid goes on (for the frequency windows of the top groups) up to the spectrum's end.
        let relative = settings.relativeBandwidth.isFinite ? min(max(0, settings.relativeBandwidth), 1) : 0
        let edgeBins = e.dropFirst().map { Int(($0 / binWidth).rounded(.up)) }
        var starts: [Int] = [], bandOf: [Int] = []
        var k = 0, b = 0, lastGroup = 0
        while k < bins {
            if k <= lastBin {
                while b < bandCount - 1 && Double(k) * binWidth >= e[b + 1] { b += 1 }
                lastGroup = starts.count
            } else if starts.count > lastGroup + freqHalf {
                break
            }
            let width = max(1, Int((Double(k) * relative).rounded(.down)))
            var end = min(bins, k + width)
            if k <= lastBin {
                end = min(end, lastBin + 1)
                if let next = edgeBins.first(where: { $0 > k }) { end = min(end, next) }
            }
            starts.append(k)
            if k <= lastBin { bandOf.append(b) }
            k = max(k + 1, end)
        }
        starts.append(k)
        groupStart = starts
        maxBin = lastGroup
        storedBins = starts.count - 1
        bandOfBin = bandOf
        ring = [Float](repeating: 0, count: ringLength * storedBins)
        sortedTime = [Float](repeating: 0, count: (maxBin + 1) * timeWidth)
        timeMedian = [Float](repeating: 0, count: maxBin + 1)
        belowCount = [Int32](repeating: 0, count: maxBin + 1)
        aboveCount = [Int32](repeating: 0, count: maxBin + 1)
        pending = [Float](repeating: 0, count: storedBins)
        ringFrames = [Float](repeating: 0, count: ringLength)
        pooled = [Float](repeating: 0, count: 3 * bandCount)
    }

    /// Number of frequency groups separated (for tests and documentation).
    var groupCount: Int { maxBin + 1 }

    func consume(_ frame: SpectralFrame) {
        frame.magnitude.withUnsafeBufferPointer { src in
            groupStart.withUnsafeBufferPointer { g in
                pending.withUnsafeMutableBufferPointer { acc in
                    let n = src.count
                    for j in 0..<acc.count {
                        var sum: Float = 0
                        var k = g[j]
                        let end = min(g[j + 1], n)
                        while k < end {
                            // Non-finite magnitudes (overflowing input) would break the medians' ordering.
                            let x = src[k]
                            if x.isFinite { sum += x * x }
                            k += 1
                        }
                        acc[j] += sum
                    }
                }
            }
        }
        pendingFrames += 1
        if pendingFrames == pool { push() }
    }

    /// Moves the pooled frame into the ring and decides the frames that are now complete.
    private func push() {
        let slot = framesSeen % ringLength
        let frames = Float(max(1, pendingFrames))
        let base = slot * storedBins
        // Buffer pointers for the whole loop: no exclusivity check per group on the properties.
        ring.withUnsafeMutableBufferPointer { r in
            pending.withUnsafeMutableBufferPointer { acc in
                for j in 0..<acc.count {
                    let v = (acc[j] / frames).squareRoot()
                    r[base + j] = v.isFinite ? v : 0
                    acc[j] = 0
                }
            }
        }
        ringFrames[slot] = frames
        pendingFrames = 0
        framesSeen += 1
        while nextCentre + timeHalf <= framesSeen - 1 {
            process(centre: nextCentre, last: framesSeen - 1)
            nextCentre += 1
        }
    }

    func finish() -> HarmonicPercussiveFeatures {
        if pendingFrames > 0 { push() }
        while nextCentre <= framesSeen - 1 {
            process(centre: nextCentre, last: framesSeen - 1)
            nextCentre += 1
        }
        if pooledFrames > 0 { flush() }
        return HarmonicPercussiveFeatures(
            frameRate: configuration.frameRate / Double(framesPerVector * pool),
            framesPerVector: framesPerVector * pool, bandEdges: edges,
            harmonic: harmonic.takeArray(), percussive: percussive.takeArray(),
            residual: residual.takeArray())
    }

    // MARK: - Per frame

    /// Moves the sorted time windows to frames `low...high` (both ends move forward only),
    /// rebuilding them first when the nine-frame fast path left them stale.
    private func moveTimeWindow(to low: Int, _ high: Int) {
        let stored = storedBins, width = timeWidth, length = ringLength, top = maxBin
        if !sortedValid {
            // The fast path moved the window without the sorted copies: refill them.
            windowLow = max(windowLow, low)
            let end = windowHigh
            windowHigh = windowLow - 1
            sortedValid = true
            ring.withUnsafeBufferPointer { r in
                sortedTime.withUnsafeMutableBufferPointer { s in
                    while windowHigh < end {
                        let count = windowHigh - windowLow + 1
                        let new = ((windowHigh + 1) % length) * stored
                        for k in 0...top { Self.insert(r[new + k], in: s, base: k * width, count: count) }
                        windowHigh += 1
                    }
                }
            }
        }
        ring.withUnsafeBufferPointer { r in
            sortedTime.withUnsafeMutableBufferPointer { s in
                while windowHigh < high || windowLow < low {
                    let count = windowHigh - windowLow + 1
                    if windowHigh < high && windowLow < low && count > 0 {
                        let old = (windowLow % length) * stored, new = ((windowHigh + 1) % length) * stored
                        for k in 0...top { Self.replace(r[old + k], with: r[new + k], in: s, base: k * width, count: count) }
                        windowLow += 1
                        windowHigh += 1
                    } else if windowHigh < high && count < width {
                        let new = ((windowHigh + 1) % length) * stored
                        for k in 0...top { Self.insert(r[new + k], in: s, base: k * width, count: max(0, count)) }
                        windowHigh += 1
                    } else {
                        let old = (windowLow % length) * stored
                        if count > 0 {
                            for k in 0...top { Self.remove(r[old + k], in: s, base: k * width, count: count) }
                        }
                        windowLow += 1
                    }
                }
            }
        }
    }

    /// The time medians of every group over frames `low...high` into `timeMedian`. A full window
    /// of nine frames (the default 17 STFT frames pooled by 2) takes a median-of-9 selection
    /// network on the ring itself (A. Paeth's, as in N. Devillard, "Fast median search: an ANSI
    /// C implementation", 1998: 19 compare-exchanges, no data-dependent branches); other
    /// windows (the first and last frames of the input, other median lengths) the sorted windows.
    /// Both give the same value, the middle one of the window's values.
    private func computeTimeMedians(low: Int, high: Int) {
        let top = maxBin
        if timeWidth == 9 && high - low + 1 == 9 {
            let stored = storedBins, length = ringLength
            ring.withUnsafeBufferPointer { r in
                timeMedian.withUnsafeMutableBufferPointer { out in
                    // The nine frames' groups as views indexed from 0 (no per-value index arithmetic).
                    func frame(_ j: Int) -> UnsafeBufferPointer<Float> {
                        let base = ((low + j) % length) * stored
                        return UnsafeBufferPointer(rebasing: r[base..<base + top + 1])
                    }
                    let f0 = frame(0), f1 = frame(1), f2 = frame(2), f3 = frame(3), f4 = frame(4)
                    let f5 = frame(5), f6 = frame(6), f7 = frame(7), f8 = frame(8)
                    for k in 0...top {
                        out[k] = OrderStatistics.median9(f0[k], f1[k], f2[k], f3[k], f4[k], f5[k], f6[k], f7[k], f8[k])
                    }
                }
            }
            windowLow = low
            windowHigh = high
            sortedValid = false
            return
        }
        moveTimeWindow(to: low, high)
        let width = timeWidth, rank = (windowHigh - windowLow + 1) / 2
        sortedTime.withUnsafeBufferPointer { st in
            timeMedian.withUnsafeMutableBufferPointer { out in
                for k in 0...top { out[k] = st[k * width + rank] }
            }
        }
    }

    /// Decides the separated frame `centre`: each group is harmonic when its time median `h`
    /// exceeds β × its frequency median `p`, percussive when `p` exceeds β × `h`, residual
    /// otherwise.
    ///
    /// The frequency median itself is never formed: `h > β·p` holds exactly when more than half
    /// of the window's values `v` (at least `n/2 + 1` of `n`, as `p` is the value of rank `n/2`)
    /// have `h > β·v`, and `p > β·h` when at least `n − n/2` values exceed `β·h`, since both tests
    /// are monotone in `v` (also in floating point). So two counts per group over the ±`freqHalf`
    /// neighbours decide it, in loops over the groups without data-dependent branches — the
    /// same decisions as sorting the windows, several times faster.
    private func process(centre: Int, last: Int) {
        computeTimeMedians(low: max(0, centre - timeHalf), high: min(last, centre + timeHalf))
        let stored = storedBins, fh = freqHalf, top = maxBin
        let centreBase = (centre % ringLength) * stored
        let beta = beta, bands = bandCount
        let frames = ringFrames[centre % ringLength]
        ring.withUnsafeBufferPointer { r in
            timeMedian.withUnsafeBufferPointer { tm in
                belowCount.withUnsafeMutableBufferPointer { below in
                    aboveCount.withUnsafeMutableBufferPointer { above in
                        for k in 0...top { below[k] = 0; above[k] = 0 }
                        // Neighbour k + o of every group k (clipped to the stored groups).
                        for o in -fh...fh {
                            let first = max(0, -o), end = min(top, stored - 1 - o)
                            guard first <= end else { continue }
                            // Rebased views indexed from 0, so that the loop vectorises.
                            let count = end - first + 1
                            let values = UnsafeBufferPointer(rebasing: r[(centreBase + first + o)..<(centreBase + first + o + count)])
                            let medians = UnsafeBufferPointer(rebasing: tm[first..<(first + count)])
                            let b = UnsafeMutableBufferPointer(rebasing: below[first..<(first + count)])
                            let a = UnsafeMutableBufferPointer(rebasing: above[first..<(first + count)])
                            for i in 0..<count {
                                let v = values[i], h = medians[i]
                                b[i] &+= h > beta * v ? 1 : 0
                                a[i] &+= v > beta * h ? 1 : 0
                            }
                        }
                        pooled.withUnsafeMutableBufferPointer { acc in
                            bandOfBin.withUnsafeBufferPointer { bandOf in
                                for k in 0...top {
                                    let n = Int32(min(k + fh, stored - 1) - max(k - fh, 0) + 1)
                                    let x = r[centreBase + k]
                                    let component = below[k] >= n / 2 + 1 ? 0 : (above[k] >= n - n / 2 ? 1 : 2)
                                    acc[component * bands + bandOf[k]] += x * x * frames
                                }
                            }
                        }
                    }
                }
            }
        }
        pooledFrames += 1
        pooledSTFTFrames += frames
        if pooledFrames == framesPerVector { flush() }
    }

    private func flush() {
        let scale = powerScale / max(1, pooledSTFTFrames)
        for i in pooled.indices { pooled[i] *= scale }
        harmonic.append(contentsOf: pooled[0..<bandCount])
        percussive.append(contentsOf: pooled[bandCount..<(2 * bandCount)])
        residual.append(contentsOf: pooled[(2 * bandCount)..<(3 * bandCount)])
        for i in pooled.indices { pooled[i] = 0 }
        pooledFrames = 0
        pooledSTFTFrames = 0
    }

    // MARK: - Sorted windows
    //
    // A window is `count` values at `s[base ..< base + count]`, ascending. Its median (rank
    // `count / 2`, the upper median for even counts) is `s[base + count / 2]`.

    /// Index of the first value not below `v` (`base + count` when there is none).
    @inline(__always)
    private static func lowerBound(_ v: Float, in s: UnsafeMutableBufferPointer<Float>, base: Int, count: Int) -> Int {
        var lo = base, hi = base + count
        while lo < hi {
            let m = (lo + hi) >> 1
            if s[m] < v { lo = m + 1 } else { hi = m }
        }
        return lo
    }

    /// Inserts `v` into a window of `count` values (capacity at least `count + 1`).
    @inline(__always)
    static func insert(_ v: Float, in s: UnsafeMutableBufferPointer<Float>, base: Int, count: Int) {
        var j = base + count
        while j > base && s[j - 1] > v {
            s[j] = s[j - 1]
            j -= 1
        }
        s[j] = v
    }

    /// Removes one value equal to `v` from a window of `count` values (`count >= 1`); the last
    /// value if `v` is not present (which the accumulator's invariants exclude).
    @inline(__always)
    static func remove(_ v: Float, in s: UnsafeMutableBufferPointer<Float>, base: Int, count: Int) {
        let end = base + count
        var i = min(end - 1, lowerBound(v, in: s, base: base, count: count))
        while i + 1 < end {
            s[i] = s[i + 1]
            i += 1
        }
    }

    /// Replaces one value equal to `old` by `new` in a window of `count` values (`count >= 1`),
    /// keeping it sorted; shifts only the values ranked between the two.
    @inline(__always)
    static func replace(_ old: Float, with new: Float, in s: UnsafeMutableBufferPointer<Float>, base: Int, count: Int) {
        let end = base + count
        var i = min(end - 1, lowerBound(old, in: s, base: base, count: count))
        if new > old {
            while i + 1 < end && s[i + 1] < new {
                s[i] = s[i + 1]
                i += 1
            }
        } else {
            while i > base && s[i - 1] > new {
                s[i] = s[i - 1]
                i -= 1
            }
        }
        s[i] = new
    }
}
