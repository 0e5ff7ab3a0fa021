import Foundation

/// Settings of the harmonic pitch-class profile (HPCP) computed from the shared STFT.
///
/// The defaults follow Gómez (2006) where the paper gives a value and are otherwise chosen for
/// key estimation on mixed pop/classical material.
public struct ChromaConfiguration: Sendable, Hashable, Codable {
    /// Lowest spectral peak frequency considered, Hz. Default 130 (C3). Below it the 10.8 Hz
    /// bins of the shared 2048-point STFT are wider than a semitone, adjacent bass notes merge
    /// into one peak and the interpolated pitch is unreliable; measured on the evaluation corpus,
    /// a 50 Hz limit lowered key accuracy on every profile. Bass notes still count through their
    /// upper partials.
    public var minFrequency: Double = 130
    /// Highest spectral peak frequency considered, Hz. Default 3500 (Essentia's key extractor
    /// default; Gómez 2006 uses 5000). Above it partials are mostly high harmonics whose pitch
    /// class differs from the note's; measured on the evaluation corpus, 3500 beat 5000.
    public var maxFrequency: Double = 3500
    /// Number of harmonics a peak is credited to (the peak at `f` also counts for the pitch
    /// classes of `f/2 ... f/h`). Default 4 (Gómez 2006, sec. 3.3).
    public var harmonics: Int = 4
    /// Weight decay per harmonic: harmonic `h` gets `harmonicDecay^(h-1)`. Default 0.6 (Gómez 2006).
    public var harmonicDecay: Double = 0.6
    /// Total width, in semitones, of the cos² window that spreads a peak over neighbouring
    /// bins. Default 4/3 (Gómez 2006, sec. 3.3).
    public var windowWidth: Double = 4.0 / 3.0
    /// Exponent applied to a peak's magnitude before it is added. Default 1 (magnitudes, as
    /// Essentia's HPCP; 2 would add peak energies). Measured on the evaluation corpus, energies
    /// let the loudest chord tone dominate and confused major with minor.
    public var magnitudeExponent: Double = 1
    /// Length in STFT frames of both median filters of the harmonic/percussive test
    /// (Fitzgerald 2010). Default 17 (about 0.2 s in time, ±86 Hz in frequency).
    public var medianLength: Int = 17
    /// A peak counts as harmonic when the median of its bin over time exceeds this factor times
    /// the median of its neighbourhood over frequency (the binary mask with separation factor of
    /// Driedger, Müller & Disch 2014). Default 2.
    public var separationFactor: Float = 2
    /// Only every `frameStride`-th STFT frame is analysed (the temporal median then spans the
    /// same time with fewer frames). Default 4 (a 46 ms hop, still finer than the 93 ms of
    /// Essentia's key extractor): a quarter of the cost, with the same key results on the
    /// evaluation corpus as every frame.
    public var frameStride: Int = 4
    /// STFT frames summed into one stored chroma vector. Default 16 (5.38 vectors/s at the
    /// default STFT settings): about 2.8 MB per hour of audio while streaming (36 bins) and
    /// 1.2 MB per hour in the finished features (12 bins and two energies).
    public var framesPerVector: Int = 16
    /// Peaks more than this factor below the strongest bin of their frame (within the frequency
    /// limits) are ignored. Default 0.003 (-50 dB): they add nothing measurable to a
    /// magnitude-weighted profile (the key results on the evaluation corpus were identical at
    /// -60, -50 and -40 dB), and skipping them keeps the per-frame cost low.
    public var relativeFloor: Float = 0.003
    /// Peaks below this magnitude (linear, of a Hann-windowed 2048-point frame; a full-scale
    /// sine gives about 512) are ignored. Default 0.05 (about -80 dBFS).
    public var magnitudeFloor: Float = 0.05

    /// The default configuration.
    public init() {}
}

/// Pitch-class profiles over time, tuned to the estimated reference pitch.
///
/// Computed from the shared STFT as a harmonic pitch-class profile (HPCP, E. Gómez, "Tonal
/// description of polyphonic audio for music content processing", INFORMS Journal on Computing
/// 18(3), 2006): spectral peaks (parabolic interpolation) that pass a median-filter
/// harmonic/percussive test (D. Fitzgerald, "Harmonic/percussive separation using median
/// filtering", DAFx 2010) are weighted by a cos² window over 1/3-semitone bins and credited to
/// their sub-harmonics. The reference tuning is estimated from the peaks' deviation from the
/// semitone grid and applied when the 36-bin profile is folded to 12 pitch classes.
///
/// The harmonic/percussive decision is Fitzgerald's median filtering (17 bins across frequency
/// against ±93 ms across time, with the separation factor of Driedger, Müller & Disch, ISMIR
/// 2014), evaluated only at spectral peaks, the only bins a peak-based chroma reads: it gives
/// the same mask there at a small fraction of the cost of filtering every bin. Broadband drum
/// hits fail the temporal test, noise floors the spectral one, sustained partials pass.
///
/// The same vectors serve the key analysis and later analyses that need harmony (structure).
public struct ChromaFeatures: Sendable {
    /// Chroma vectors per second.
    public var frameRate: Double
    /// STFT frames summed into each vector.
    public var framesPerVector: Int
    /// 12 values per vector, C first, flattened. Values are summed harmonic peak energies (not
    /// normalised): silence and percussion give vectors near zero.
    public var vectors: [Float]
    /// Total spectral energy (sum of squared magnitudes between the configured frequency limits)
    /// of the frames of each vector.
    public var spectralEnergy: [Float]
    /// Energy of the harmonic peaks that entered each vector (1.5 × squared peak magnitude, the
    /// energy of a Hann main lobe), in the units of `spectralEnergy`: the ratio of the two is the
    /// share of the spectrum that is tonal.
    public var harmonicEnergy: [Float]
    /// Estimated tuning: deviation of the reference pitch from A4 = 440 Hz, in cents
    /// (-50 ..< 50). 0 when no tonal peaks were found.
    public var tuningCents: Double
    /// Number of chroma vectors.
    public var count: Int { vectors.count / 12 }
    /// The share of the whole input's spectral energy in harmonic peaks (``harmonicEnergy`` over
    /// ``spectralEnergy``, summed over the vectors); `nil` without spectral energy.
    public var harmonicShare: Double? {
        let spectral = spectralEnergy.reduce(0.0) { $0 + Double($1) }
        guard spectral > 0 else { return nil }
        return harmonicEnergy.reduce(0.0) { $0 + Double($1) } / spectral
    }
    /// Estimated frequency of A4, Hz.
    public var referenceFrequency: Double { 440 * pow(2, tuningCents / 1200) }

    /// Rate of ``blockVectors``, per second (one HPCP per analysed STFT frame, every
    /// `frameStride` frames: about 21.5/s).
    public var blockRate: Double
    /// The same HPCP at the finer block rate (12 values per block, tuned, flattened): the chroma
    /// for harmonic change (rhythm's downbeats) and beat-synchronous harmony (structure). Each of
    /// ``vectors`` is the sum of `framesPerVector / frameStride` consecutive blocks.
    public var blockVectors: [Float]
    /// Number of blocks in ``blockVectors``.
    public var blockCount: Int { blockVectors.count / 12 }

    /// ``blockVectors`` as a frame feature for segment aggregation: block `j` is centred on STFT
    /// frame `j × frameStride`, i.e. at time `j / blockRate`. `nil` without blocks.
    public var blockFeature: FrameFeature? {
        guard blockRate > 0, blockRate.isFinite, !blockVectors.isEmpty else { return nil }
        return FrameFeature(values: blockVectors, dimension: 12, frameRate: blockRate, startTime: -0.5 / blockRate)
    }

    /// Creates chroma features from their parts.
    public init(
        frameRate: Double, framesPerVector: Int, vectors: [Float], spectralEnergy: [Float],
        harmonicEnergy: [Float], tuningCents: Double, blockRate: Double = 0, blockVectors: [Float] = []
    ) {
        self.blockRate = blockRate
        self.blockVectors = blockVectors
        self.harmonicEnergy = harmonicEnergy
        self.frameRate = frameRate
        self.framesPerVector = framesPerVector
        self.vectors = vectors
        self.spectralEnergy = spectralEnergy
        self.tuningCents = tuningCents
    }

    /// Start time in seconds of the span vector `i` summarises (its first frame's centre).
    public func startTime(ofVector i: Int) -> Double { Double(i) / frameRate }
}

/// Computes the HPCP frame by frame, streaming, with bounded state.
///
/// Per frame the work is a scan of the bins between the frequency limits for local maxima, per
/// candidate peak a five-frame temporal median and one count over its 17 neighbouring bins
/// (``exceedsFrequencyMedian(_:_:around:half:factor:)``), and a few table look-ups per harmonic;
/// nothing is allocated per frame. Frames are processed with a delay of half the temporal median filter
/// (about 93 ms).
final class ChromaAccumulator: SpectralFrameConsumer {
    private let configuration: FeatureConfiguration
    private let settings: ChromaConfiguration

    // Bin limits.
    private let minBin: Int
    private let maxBin: Int
    private let storedBins: Int
    private let half: Int  // half length of the frequency median, bins
    private let timeHalf: Int  // half length of the temporal median, processed frames
    private let stride: Int
    private var incoming = 0

    // Ring buffer of the last `medianLength` magnitude frames (bins 0..<storedBins).
    private var ring: [Float]
    private var framesSeen = 0
    private var nextCentre = 0

    // Scratch for medians and ring offsets of the temporal window.
    private var scratch: [Float]
    private var rowOffsets: [Int]

    // Constants.
    private let semitoneOffset: [Float]  // 12 * log2(h) per harmonic h, in semitones
    private let harmonicWeight: [Float]
    private let windowTable: [Float]  // cos² weight by distance in 1/3-semitone bins
    private let windowTableScale: Float  // table steps per 1/3-semitone bin
    private let windowReach: Float  // half window width in 1/3-semitone bins
    private let log2BinToC0: Float  // log2(binWidth / C0)

    // Per-vector accumulators and outputs.
    private var block = [Float](repeating: 0, count: 36)
    private var blockEnergy: Float = 0
    private var blockHarmonic: Float = 0
    private var harmonicEnergies: [Float] = []
    private var blockFrames = 0
    private var store36 = ChunkedFloats(chunkSize: 36 * 2048)  // whole blocks per chunk
    private var energies: [Float] = []
    private var tuningHistogram = [Double](repeating: 0, count: 100)

    init(configuration: FeatureConfiguration, settings: ChromaConfiguration = .init()) {
        self.configuration = configuration
        self.settings = settings
        let binWidth = configuration.binWidth
        let bins = configuration.binCount
        half = max(1, settings.medianLength / 2)
        stride = max(1, min(settings.frameStride, settings.framesPerVector))
        timeHalf = max(1, half / stride)
        minBin = max(2, Int((settings.minFrequency / binWidth).rounded(.down)))
        maxBin = max(minBin, min(bins - 3, Int((settings.maxFrequency / binWidth).rounded(.up))))
        storedBins = min(bins, maxBin + half + 2)
        ring = [Float](repeating: 0, count: (2 * timeHalf + 1) * storedBins)
        scratch = [Float](repeating: 0, count: 2 * half + 1)
        rowOffsets = [Int](repeating: 0, count: 2 * timeHalf + 1)
        let h = max(1, settings.harmonics)
        semitoneOffset = (1...h).map { Float(12 * log2(Double($0))) }
        harmonicWeight = (1...h).map { Float(pow(settings.harmonicDecay, Double($0 - 1))) }
        // Half width of the window in 1/3-semitone bins.
        let reach = Float(settings.windowWidth * 3 / 2)
        windowReach = reach
        let steps = 64
        windowTableScale = Float(steps)
        windowTable = (0...(Int(reach.rounded(.up)) * steps + 1)).map { i in
            let d = Float(i) / Float(steps)
            guard d < reach else { return 0 }
            let c = cos(Float.pi / 2 * d / reach)
            return c * c
        }
        let c0 = 440 * pow(2, -57.0 / 12)
        log2BinToC0 = Float(log2(binWidth / c0))
    }

    func consume(_ frame: SpectralFrame) {
        defer { incoming += 1 }
        guard incoming % stride == 0 else { return }
        let slot = framesSeen % (2 * timeHalf + 1)
        frame.magnitude.withUnsafeBufferPointer { src in
            ring.withUnsafeMutableBufferPointer { dst in
                let base = slot * storedBins
                let n = min(storedBins, src.count)
                for k in 0..<n { dst[base + k] = src[k] }
                for k in n..<storedBins { dst[base + k] = 0 }
            }
        }
        framesSeen += 1
        let last = framesSeen - 1
        while nextCentre + timeHalf <= last {
            process(centre: nextCentre, last: last)
            nextCentre += 1
        }
    }

    func finish() -> ChromaFeatures {
        let last = framesSeen - 1
        while nextCentre <= last {
            process(centre: nextCentre, last: last)
            nextCentre += 1
        }
        if blockFrames > 0 { flushBlock() }
        let tuning = estimateTuning()
        let count = store36.count / 36
        var vectors = [Float](repeating: 0, count: 12 * count)  // one per analysed frame (stride)
        // Fold 36 -> 12 bins at the estimated tuning: pitch class k is centred at 36-bin
        // position 3 (k + tuning); sum the linearly interpolated values one bin either side.
        let shift = Float(tuning / 100) * 3
        // Chunk by chunk (each holds whole blocks), each chunk freed once folded.
        var first = 0
        store36.consumeChunks { chunk in
            chunk.withUnsafeBufferPointer { s in
                vectors.withUnsafeMutableBufferPointer { v in
                    for local in 0..<(s.count / 36) {
                        let base = 36 * local, i = first + local
                        for k in 0..<12 {
                            var sum: Float = 0
                            for m in -1...1 {
                                let x = Float(3 * k + m) + shift
                                let x0 = x.rounded(.down)
                                let frac = x - x0
                                let j0 = ((Int(x0) % 36) + 36) % 36
                                let j1 = (j0 + 1) % 36
                                sum += (1 - frac) * s[base + j0] + frac * s[base + j1]
                            }
                            v[12 * i + k] = sum
                        }
                    }
                }
            }
            first += chunk.count / 36
        }
        // The key's vectors are sums of `framesPerVector / stride` consecutive fine vectors (the
        // fold is linear, so this equals folding the summed 36-bin profile).
        let group = max(1, settings.framesPerVector / stride)
        let pooledCount = (count + group - 1) / group
        var pooled = [Float](repeating: 0, count: 12 * pooledCount)
        var pooledEnergy = [Float](repeating: 0, count: pooledCount)
        var pooledHarmonic = [Float](repeating: 0, count: pooledCount)
        for i in 0..<count {
            let g = i / group
            for k in 0..<12 { pooled[12 * g + k] += vectors[12 * i + k] }
            if i < energies.count { pooledEnergy[g] += energies[i] }
            if i < harmonicEnergies.count { pooledHarmonic[g] += harmonicEnergies[i] }
        }
        return ChromaFeatures(
            frameRate: configuration.frameRate / Double(group * stride),
            framesPerVector: group * stride, vectors: pooled,
            spectralEnergy: pooledEnergy, harmonicEnergy: pooledHarmonic, tuningCents: tuning,
            blockRate: configuration.frameRate / Double(stride), blockVectors: vectors)
    }

    // MARK: - Per frame

    private func process(centre: Int, last: Int) {
        let length = 2 * timeHalf + 1
        let first = max(0, centre - timeHalf)
        let end = min(last, centre + timeHalf)
        let centreSlot = centre % length
        let absoluteFloor = settings.magnitudeFloor
        let relativeFloor = settings.relativeFloor
        let beta = settings.separationFactor
        let exponent = Float(settings.magnitudeExponent)
        let harmonics = semitoneOffset.count

        // Offsets in the ring of the frames of the temporal median window.
        for i in 0..<(end - first + 1) { rowOffsets[i] = ((first + i) % length) * storedBins }
        rowOffsets.withUnsafeBufferPointer { rowOffsets in
            ring.withUnsafeBufferPointer { r in
                scratch.withUnsafeMutableBufferPointer { tmp in
                    block.withUnsafeMutableBufferPointer { acc in
                        tuningHistogram.withUnsafeMutableBufferPointer { hist in
                            let x = UnsafeBufferPointer(rebasing: r[(centreSlot * storedBins)..<((centreSlot + 1) * storedBins)])
                            var energy: Float = 0
                            var harmonic: Float = 0
                            var strongest: Float = 0
                            for k in minBin...maxBin {
                                energy += x[k] * x[k]
                                strongest = max(strongest, x[k])
                            }
                            let floor = max(absoluteFloor, strongest * relativeFloor)
                            let rows = rowOffsets
                            let rowCount = end - first + 1
                            blockEnergy += energy
                            var k = minBin
                            while k <= maxBin {
                                let m = x[k]
                                // A sinusoid's Hann main lobe spans ±2 bins: require a maximum over them.
                                guard m > floor, m > x[k - 1], m >= x[k + 1], m > x[k - 2], m >= x[k + 2] else { k += 1; continue }
                                // Harmonic/percussive test (Fitzgerald 2010, binary mask with
                                // separation factor beta), on the bin's temporal median.
                                let t = Self.timeMedian(r, rows, rowCount, k, tmp)
                                guard Self.exceedsFrequencyMedian(t, x, around: k, half: half, factor: beta) else { k += 2; continue }
                                // Parabolic interpolation on log magnitude.
                                let a = logf(max(x[k - 1], 1e-12)), b = logf(m), c = logf(max(x[k + 1], 1e-12))
                                let delta = min(0.5, max(-0.5, PeakPicking.parabolicOffset(a, b, c) ?? 0))
                                let peakLog = b - 0.25 * (a - c) * delta
                                let magnitude = expf(peakLog)
                                let weight = exponent == 1 ? magnitude : powf(magnitude, exponent)
                                harmonic += 1.5 * magnitude * magnitude
                                // Position in semitones above C0.
                                let semis = 12 * (log2f(Float(k) + delta) + log2BinToC0)
                                // Tuning histogram: deviation from the equal-tempered grid, 1-cent bins.
                                let dev = semis - semis.rounded()
                                let cents = Int(((dev + 0.5) * 100).rounded(.down))
                                hist[min(99, max(0, cents))] += Double(magnitude)
                                for hIndex in 0..<harmonics {
                                    let s = semis - semitoneOffset[hIndex]
                                    var pos = s * 3
                                    pos -= 36 * (pos / 36).rounded(.down)
                                    let w = weight * harmonicWeight[hIndex]
                                    let j0 = Int((pos - windowReach).rounded(.up))
                                    let j1 = Int((pos + windowReach).rounded(.down))
                                    if j0 <= j1 {
                                        for j in j0...j1 {
                                            let d = abs(Float(j) - pos)
                                            let t = Int(d * windowTableScale)
                                            guard t < windowTable.count else { continue }
                                            acc[((j % 36) + 36) % 36] += w * windowTable[t]
                                        }
                                    }
                                }
                                k += 2
                            }
                            blockHarmonic += harmonic
                        }
                    }
                }
            }
        }
        blockFrames += 1
        flushBlock()
    }

    private func flushBlock() {
        store36.append(contentsOf: block)
        energies.append(blockEnergy)
        harmonicEnergies.append(blockHarmonic)
        blockHarmonic = 0
        for j in 0..<36 { block[j] = 0 }
        blockEnergy = 0
        blockFrames = 0
    }

    /// The temporal median of bin `k`: the `rowCount / 2 + 1`-th largest of
    /// `max(x[k-1], x[k], x[k+1])` over the frames at ring
    /// offsets `rows`. At least that many of the frames exceed a limit exactly when this value
    /// does, which is the temporal half of the harmonic test. `scratch` holds at least
    /// `rowCount` values.
    @inline(__always)
    static func timeMedian(
        _ r: UnsafeBufferPointer<Float>, _ rows: UnsafeBufferPointer<Int>, _ rowCount: Int, _ k: Int,
        _ scratch: UnsafeMutableBufferPointer<Float>
    ) -> Float {
        @inline(__always) func value(_ t: Int) -> Float {
            let b = rows[t] + k
            return max(r[b - 1], max(r[b], r[b + 1]))
        }
        if rowCount == 5 {
            // The default window (17 frames at stride 4).
            return OrderStatistics.median5(value(0), value(1), value(2), value(3), value(4))
        }
        for t in 0..<rowCount { scratch[t] = value(t) }
        return OrderStatistics.largest(scratch, count: rowCount, rank: rowCount / 2 + 1)
    }

    /// The harmonic test of a peak at bin `k` (Fitzgerald 2010, the binary mask with separation
    /// factor β): whether the temporal median `t` of the bin exceeds `factor` (β) times the
    /// median `p` of the spectrum `x` over bins `k − half ... k + half` (clipped to `x`).
    ///
    /// `p` itself is never formed: `t > β·p` holds exactly when at least `n/2 + 1` of the `n`
    /// values `v` have `β·v < t`, as `p` is the value of rank `n/2` and `β·v` is monotone in `v`
    /// (also in floating point). One branch-free count replaces sorting the window.
    @inline(__always)
    static func exceedsFrequencyMedian(
        _ t: Float, _ x: UnsafeBufferPointer<Float>, around k: Int, half: Int, factor beta: Float
    ) -> Bool {
        let lo = max(0, k - half), hi = min(x.count - 1, k + half)
        guard lo <= hi else { return false }
        var below = 0
        for j in lo...hi { below &+= beta * x[j] < t ? 1 : 0 }
        return below >= (hi - lo + 1) / 2 + 1
    }

    /// Tuning in cents from the circular 1-cent histogram of peak deviations: the histogram is
    /// smoothed circularly (±10 cents, triangular), its mode found, and refined by the circular
    /// mean of the deviations within ±25 cents of the mode.
    private func estimateTuning() -> Double {
        let total = tuningHistogram.reduce(0, +)
        guard total > 0 else { return 0 }
        var best = 0, bestValue = -1.0
        for i in 0..<100 {
            var s = 0.0
            for d in -10...10 {
                s += Double(11 - abs(d)) * tuningHistogram[((i + d) % 100 + 100) % 100]
            }
            if s > bestValue { bestValue = s; best = i }
        }
        var re = 0.0, im = 0.0
        for d in -25...25 {
            let j = ((best + d) % 100 + 100) % 100
            let angle = 2 * Double.pi * (Double(j) + 0.5) / 100
            re += tuningHistogram[j] * cos(angle)
            im += tuningHistogram[j] * sin(angle)
        }
        // Bin j holds deviations (j + 0.5)/100 - 0.5 semitones: angle 0 ≙ -50 cents.
        var cents = atan2(im, re) / (2 * Double.pi) * 100 - 50
        if cents < -50 { cents += 100 }
        if cents >= 50 { cents -= 100 }
        return cents
    }
}
