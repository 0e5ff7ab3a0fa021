import Foundation

/// The dominant beat period of an onset-strength curve.
struct TempoEstimate: Sendable {
    /// Beat period in frames (fractional, parabolically interpolated).
    var period: Double
    /// Tempo in beats per minute.
    var beatsPerMinute: Double
    /// Pulse salience: the largest mean normalised autocorrelation among the levels of the
    /// chosen metrical hierarchy (the level first chosen, its double and triple, and `period`;
    /// 0 for no pulse, 1 for a perfectly periodic curve).
    var salience: Double
    /// Periodicity of the harmonic change at `period`: the mean normalised autocorrelation of
    /// the harmonic-change curve there (the largest within one chroma block; 0 without one).
    var harmonicSalience: Double = 0
    /// Whether the pulse test passed on the harmonic change alone, the onsets' pulse being too
    /// weak (``RhythmAnalyzer/estimateTempo(_:frameRate:harmonicChange:harmonicRate:estimator:thresholds:)``).
    var pulseFromHarmonicChange = false
    /// The chosen metrical level and its octave neighbours (half and double the period, where
    /// they lie in the tempo range), each with its share of their summed scores; the chosen
    /// level first.
    var candidates: [TempoCandidate] = []
    /// The mean normalised autocorrelation the period was picked from, by lag in frames.
    var autocorrelation: [Double] = []
}

/// Global tempo from the periodicity of the onset strength.
///
/// Method: the onset curve is cut into overlapping windows; each window's mean-removed
/// autocorrelation is normalised by its zero-lag value and the windows are averaged (the
/// autocorrelation tempogram of Grosche & Müller 2011, averaged as in librosa and Ellis 2007,
/// sec. 3.1). Every lag `τ` is scored by its autocorrelation plus that of its metrical
/// relatives `2τ`, `3τ` and `4τ`, the candidate measure lengths of duple, triple and quadruple
/// meter: `3τ` and `4τ` with the weight of the level itself, `2τ` (itself a beat candidate)
/// with half of it (the comb-filter resonance idea of Scheirer 1998, Klapuri et al. 2006,
/// sec. III-C, and Davies & Plumbley 2007, sec. III-B, whose comb sums the first four
/// multiples alike; a level that the bar confirms wins over a 3:2- or 4:3-related level that
/// it does not, such as the tresillo or dotted-eighth pulse of a syncopated electronic
/// track), weighted by a log-Gaussian
/// perceptual prior on the tempo (Ellis 2007, eq. 6; tapping preference near 120 BPM,
/// Moelants & McKinney 2004; Davies & Plumbley 2007, "Context-dependent beat tracking of musical
/// audio", weight their comb filterbank the same way with a Rayleigh curve), so the tempo
/// reported is the level a listener taps. The periodicity of a harmonic-change curve
/// (chord changes mark the tactus: Goto 2001; Klapuri et al. 2006 use a similar
/// "accent" for the measure) is added to the onset evidence.
///
/// Grouping is then resolved inside the metrical hierarchy of the winner (tatum, tactus and
/// measure are nested levels with integer ratios, Klapuri et al. 2006, sec. III): when the
/// pulse at half (or a third of) the chosen period is nearly as periodic as the chosen level,
/// the chosen "beats" are only a grouping of that faster pulse (a click track at 200 BPM is not
/// tapped at 100, a waltz's bar is not its beat), and the estimate descends to it. The test only
/// ever moves between levels of one hierarchy, so it cannot produce a 3:2 or 4:3 error; an
/// absolute penalty on grouped levels (the earlier design) let an unrelated level win when
/// both the beat and its eighth notes pulse equally, as drums with hi-hats do in produced music.
struct TempoEstimator: Sendable {
    /// Settings.
    var configuration: RhythmAnalyzer.Configuration

    /// Estimates the tempo of `curve` (one value per frame at `frameRate`); `nil` when the curve
    /// is too short or flat.
    ///
    /// `harmonicChange`, when given, is a harmonic-change curve at `harmonicRate` values per
    /// second; its autocorrelation at each candidate period adds evidence for the level at which
    /// chords change (the tactus in chorale-like textures; Goto 2001).
    func estimate(
        _ curve: [Float], frameRate: Double, harmonicChange: [Float] = [],
        harmonicRate: Double = 0
    ) -> TempoEstimate? {
        guard let acf = meanAutocorrelation(curve, frameRate: frameRate) else { return nil }
        var chordACF: [Double] = []
        if configuration.tempo.harmonicChangeWeight > 0, harmonicRate > 0,
            let h = meanAutocorrelation(harmonicChange, frameRate: harmonicRate)
        {
            chordACF = h
        }
        return pick(acf, frameRate: frameRate, chordACF: chordACF, chordRate: harmonicRate)
    }

    /// Mean normalised windowed autocorrelation for lags `0 ..< maxLag`.
    func meanAutocorrelation(_ curve: [Float], frameRate: Double) -> [Double]? {
        let n = curve.count
        let maxLag = Int((configuration.tempo.maximumLagSeconds * frameRate).rounded(.up)) + 2
        let window = min(n, Int((configuration.tempo.tempoWindowSeconds * frameRate).rounded()))
        guard maxLag + 16 < window else { return nil }
        let hop = max(1, window / 2)
        var acf = [Double](repeating: 0, count: maxLag)
        var local = [Float](repeating: 0, count: window)
        var weightSum = 0.0
        var start = 0
        curve.withUnsafeBufferPointer { c in
            local.withUnsafeMutableBufferPointer { x in
                while true {
                    let s = min(start, n - window)
                    var mean: Float = 0
                    for i in 0..<window { mean += c[s + i] }
                    mean /= Float(window)
                    for i in 0..<window { x[i] = c[s + i] - mean }
                    var r0: Float = 0
                    for i in 0..<window { r0 += x[i] * x[i] }
                    if r0 > 1e-9, let raw = UnsafeRawPointer(x.baseAddress) {
                        // Lag l is normalised by its overlap so long lags are not biased down.
                        for l in 0..<maxLag {
                            let m = window - l
                            let r = Self.lagProduct(raw, count: m, lag: l)
                            acf[l] += Double(r / r0) * Double(window) / Double(m)
                        }
                        weightSum += 1
                    }
                    if s + window >= n { break }
                    start += hop
                }
            }
        }
        guard weightSum > 0 else { return nil }
        for l in 0..<maxLag { acf[l] /= weightSum }
        return acf
    }

    /// `Σ x[i] · x[i + lag]` for `i` in `0..<count`, over the floats at `x`, summed in eight
    /// lanes (the step's hot loop: the local tempo of step 4a runs it over every window again).
    @inline(__always)
    static func lagProduct(_ x: UnsafeRawPointer, count: Int, lag: Int) -> Float {
        let stride = MemoryLayout<Float>.stride
        var lanes = SIMD8<Float>(repeating: 0)
        var i = 0
        while i + 8 <= count {
            lanes +=
                x.loadUnaligned(fromByteOffset: i * stride, as: SIMD8<Float>.self)
                * x.loadUnaligned(fromByteOffset: (i + lag) * stride, as: SIMD8<Float>.self)
            i += 8
        }
        var r = lanes.sum()
        while i < count {
            r += x.load(fromByteOffset: i * stride, as: Float.self) * x.load(fromByteOffset: (i + lag) * stride, as: Float.self)
            i += 1
        }
        return r
    }

    /// Picks the perceptually preferred period of a mean autocorrelation.
    func pick(_ acf: [Double], frameRate: Double, chordACF: [Double] = [], chordRate: Double = 0) -> TempoEstimate? {
        let minLag = max(2, Int((60 / configuration.tempo.maximumBPM * frameRate).rounded(.down)))
        let maxLag = min(acf.count - 2, Int((60 / configuration.tempo.minimumBPM * frameRate).rounded(.up)))
        guard minLag < maxLag else { return nil }
        // The fastest period the beat may have (faster pulses remain octave candidates).
        let beatMinLag = max(minLag, Int((60 / configuration.tempo.maximumBeatBPM * frameRate).rounded(.down)))
        guard beatMinLag < maxLag else { return nil }
        let a = acf.map { max(0, $0) }
        func at(_ x: Double) -> Double {  // linear interpolation
            let i = Int(x.rounded(.down))
            guard i >= 0, i + 1 < a.count else { return 0 }
            let f = x - Double(i)
            return a[i] * (1 - f) + a[i + 1] * f
        }
        // The p-th multiple of a period is looked for within ±(p − 1) frames (the comb-filter
        // widths of Davies & Plumbley 2007, sec. III-B), as the small deviations of the period
        // from an integer lag add up over p periods.
        func comb(_ x: Double, _ p: Int) -> Double {
            var m = 0.0
            for v in (1 - p)...(p - 1) { m = max(m, at(x + Double(v))) }
            return m
        }
        /// Periodicity of the harmonic change at period `tau` (onset frames), 0 without chroma.
        func chordAt(_ tau: Double) -> Double {
            guard !chordACF.isEmpty else { return 0 }
            let x = tau * chordRate / frameRate
            let i = Int(x.rounded(.down))
            guard i >= 0, i + 1 < chordACF.count else { return 0 }
            let f = x - Double(i)
            return max(0, chordACF[i] * (1 - f) + chordACF[i + 1] * f)
        }
        /// The tempo prior alone (the resonance curve), at period `tau`.
        func prior(_ tau: Double) -> Double { resonance(period: tau, frameRate: frameRate) }
        /// The resonance score of period `l`: its comb of metrical multiples plus the chord
        /// periodicity, weighted by the tempo prior.
        func score(_ l: Int) -> Double {
            let tau = Double(l)
            let harmonic =
                a[l] + configuration.tempo.harmonic2 * comb(2 * tau, 2) + configuration.tempo.harmonic3 * comb(3 * tau, 3)
                + configuration.tempo.harmonic4 * comb(4 * tau, 4)
            return (harmonic + configuration.tempo.harmonicChangeWeight * chordAt(tau)) * prior(tau)
        }
        /// The largest harmonic-change periodicity within one chroma block of period `tau` (the
        /// chord curve's coarse rate splits a sharp pulse between two neighbouring lags).
        func chordPeak(_ tau: Double) -> Double {
            guard chordRate > 0 else { return 0 }
            let block = frameRate / chordRate
            return max(chordAt(tau - block), chordAt(tau), chordAt(tau + block))
        }
        var bestScore = 0.0, bestLag = 0
        for l in beatMinLag...maxLag {
            // Only local maxima of the autocorrelation are candidate periods.
            guard a[l] > 0, PeakPicking.isLocalMaximum(a, at: l) else { continue }
            let s = score(l)
            if s > bestScore { bestScore = s; bestLag = l }
        }
        guard bestLag > 0 else { return nil }
        // Grouping: descend the hierarchy while the level at half (or a third of) the period
        // pulses nearly as strongly as the current one. The pulse salience is that of the
        // strongest level of the hierarchy (the winner and the next two slower levels,
        // evidence that there is a pulse at all).
        var salience = acf[bestLag]
        for k in 2...3 {
            let slower = PeakPicking.climb(a, from: Double(k * bestLag))
            if slower > bestLag, slower <= maxLag { salience = max(salience, acf[slower]) }
        }
        while true {
            let tau = Double(bestLag)
            let half = at(tau / 2), third = configuration.tempo.tripleGrouping ? at(tau / 3) : 0
            let faster = PeakPicking.climb(a, from: half >= third ? tau / 2 : tau / 3)
            guard faster >= beatMinLag, faster < bestLag, a[faster] > 0 else { break }
            // An isochronous stream (identical events, a click track) is its own beat whatever
            // the chroma sampling or the prior makes of it.
            let isochronous = max(half, third) >= 0.98 * a[bestLag]
            // The faster level must be nearly as salient as the current one: as periodic, and,
            // weighted by the resonance prior, nearly as preferred (Parncutt 1994).
            let preference =
                configuration.tempo.priorWeightedGrouping && !isochronous
                ? prior(Double(faster)) / prior(tau) : 1
            guard max(half, third) * preference >= configuration.tempo.subdivisionRatio * a[bestLag] else { break }
            // Metrical well-formedness: a bar of 3 or 4 current beats that pulses more strongly
            // than anything within 4 faster periods would hold 6 or 8 faster beats, more than
            // common meters group (London 2004; `measureGroupingRatio`), unless that long
            // period is two bars of the faster level (hypermeter: patterns that repeat every
            // two bars). The periodicities cannot tell the two apart, so the tempo prior does:
            // the current level is kept when it is the nearer to the preferred tempo.
            let f = Double(faster)
            if configuration.tempo.measureGroupingRatio > 0, prior(f) <= prior(tau) {
                let measure = max(comb(3 * tau, 3), comb(4 * tau, 4))
                let seen = max(comb(2 * f, 2), comb(3 * f, 3), comb(4 * f, 4))
                if seen < configuration.tempo.measureGroupingRatio * measure { break }
            }
            // Harmony as the accent that groups a steady stream of notes (Lerdahl & Jackendoff's
            // harmonic-rhythm preference; Goto 2001): when chords change with clear periodicity
            // at the current level but not at the faster one, the faster pulse is a subdivision
            // (quavers in a chorale), not the beat.
            if configuration.tempo.harmonicGroupingRatio > 0 {
                let current = chordPeak(tau), sub = chordPeak(Double(faster))
                if !isochronous, current >= configuration.tempo.harmonicGroupingFloor,
                    sub < configuration.tempo.harmonicGroupingRatio * current
                {
                    break
                }
            }
            bestLag = faster
        }
        // The score of the level the estimate settled on is at least that of the level it was
        // first chosen at (descending moves the same evidence to the faster level).
        let chosenScore = max(bestScore, score(bestLag))
        // Octave neighbours of the chosen level with their scores (the chosen one keeps the
        // score it won with).
        var candidates: [(lag: Int, score: Double)] = [(bestLag, chosenScore)]
        for k in [2, -2] {
            let target = k > 0 ? Double(bestLag) * 2 : Double(bestLag) / 2
            let l = PeakPicking.climb(a, from: target)
            guard l >= minLag, l <= maxLag, abs(Double(l) / target - 1) < 0.1, l != bestLag else { continue }
            candidates.append((l, score(l)))
        }
        let total = candidates.reduce(0) { $0 + $1.score }
        let tempoCandidates = candidates.map { c in
            TempoCandidate(beatsPerMinute: 60 * frameRate / Double(c.lag), confidence: total > 0 ? c.score / total : 0)
        }
        // Parabolic interpolation of the peak.
        var period = Double(bestLag)
        if let d = PeakPicking.parabolicOffset(acf[bestLag - 1], acf[bestLag], acf[bestLag + 1]), abs(d) < 1 { period += d }
        return TempoEstimate(
            period: period, beatsPerMinute: 60 * frameRate / period,
            salience: max(salience, acf[bestLag]), harmonicSalience: chordPeak(period),
            candidates: tempoCandidates, autocorrelation: acf)
    }

    /// The log-Gaussian tempo prior (the resonance curve, 1 at ``RhythmAnalyzer/Configuration/TempoSettings/preferredBPM``,
    /// width ``RhythmAnalyzer/Configuration/TempoSettings/tempoPriorOctaves``) at a beat period of `period` frames.
    func resonance(period: Double, frameRate: Double) -> Double {
        let centre = 60 / configuration.tempo.preferredBPM * frameRate
        guard period > 0, centre > 0 else { return 0 }
        let z = log2(period / centre) / configuration.tempo.tempoPriorOctaves
        return exp(-0.5 * z * z)
    }
}
