import Foundation

/// Who plays when: for vocal, drum, bass and other (melodic/harmonic instruments that are
/// neither bass nor vocal), an intensity curve at 10 values per second and the time ranges
/// where the instrument is present.
///
/// Every detector works on the 10 Hz frames of ``ActivityFrames`` (harmonic / percussive /
/// residual energies in the bands 0-120, 120-250, 250-2000, 2000-5000 and 5000-11 000 Hz, plus
/// the pitch motion of the partials, ``PitchFluctuationFeatures``). Levels are in dB relative to the mix reference `G`, the 95th
/// percentile over frames of the mix energy (all components, all bands), so a song mastered
/// quieter is treated alike.
///
/// - **drum**: percussive energy (D. Fitzgerald, "Harmonic/percussive separation using median
///   filtering", DAFx 2010, sec. 2; J. Driedger, M. Müller & S. Disch, "Extending
///   harmonic-percussive separation of audio signals", ISMIR 2014, sec. 2, β = 2) over harmonic
///   energy, all bands, 0.5 s means: drums present above ``Configuration/drumPercussiveRatio``.
///   Level: percussive energy re `G`.
/// - **bass**: harmonic energy below 120 Hz (bass fundamentals), median over ±0.2 s, above
///   ``Configuration/bassLevel`` re `G`, steady (the median within 10 dB of the maximum over the
///   same window, so a kick drum's tonal tail is not a bass note) and, below 250 Hz, at least
///   as harmonic as percussive. Level: that median re `G`.
/// - **other**: harmonic energy 250-5000 Hz less the bass's upper partials (a fifth of the
///   harmonic energy below 250 Hz, at most the harmonic energy 120-250 Hz: a sub-bass has few
///   partials above 250 Hz), above ``Configuration/otherLevel`` re `G`. It does not subtract the vocal:
///   a sung line also counts as "other" harmonic energy.
/// - **vocal**: features that separate singing from instruments (B. Lehner, G. Widmer &
///   R. Sonnleitner, "On the reduction of false positives in singing voice detection", ICASSP
///   2014, sec. 3.1, the fluctogram: partials that keep moving in pitch) combined with the
///   residual of the β = 2 separation (Driedger et al. 2014, sec. 2-3: vibrato and formant
///   transitions leave the harmonic part and land in the residual). A frame is vocal when the
///   partials move (``PitchFluctuationFeatures``, ≥ ``Configuration/vocalPitchMotion`` cents
///   per 23 ms over 1 s), the texture is tonal (≥ ``Configuration/vocalTonalShare`` of the
///   subbands have clear partials: noise and distorted textures do not) and either the
///   250-5000 Hz residual is a foreground (≥ ``Configuration/vocalResidualLevel`` re `G`) that is
///   not noise (residual less the percussive energy at most ``Configuration/vocalMaximumResidualRatio``
///   dB over the harmonic energy), or the motion is a strong vibrato
///   (≥ ``Configuration/vocalVibratoMotion``) of a harmonic foreground. In both cases the
///   spectral envelope must move: the *vocal variance* (variances of cepstral coefficients 1-5
///   of the 100-5000 Hz log mel bands over 1 s,
///   B. Lehner, R. Sonnleitner & G. Widmer, "Towards light-weight, real-time-capable singing
///   voice detection", ISMIR 2013, sec. 3.2; ``ActivityFrames/vocalVariance``) at least
///   ``Configuration/vocalMinimumVariance``: vowels and consonants change it, a bowed string or a
///   woodwind holding a note with vibrato does not. Optionally
///   (``Configuration/vocalPhraseMotion``, off by default) the pitch motion must also persist
///   over a phrase (median over 3 s). Level: 250-5000 Hz residual re `G`.
///
/// Each score goes through a ``RangeTracker`` (hysteresis, gaps < 1 s bridged, ranges < 0.5 s
/// dropped). Nothing is present in frames whose mix level is below
/// ``Configuration/silenceLevel`` (relative to `G`) or below ``Configuration/absoluteFloor``.
public struct InstrumentActivityAnalyzer: Sendable {
    /// The settings.
    public var configuration: Configuration

    /// Creates an analyzer.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Per-frame detector levels (dB re `G`) and scores (dB above the detector's threshold).
    struct Detection {
        var level: [InstrumentActivityResult.Instrument: [Float]] = [:]
        var score: [InstrumentActivityResult.Instrument: [Float]] = [:]
    }

    /// Analyses the shared features; every instrument has a key (empty arrays when absent).
    public func analyze(_ features: SharedFeatures) -> InstrumentActivityResult {
        let frames = ActivityFrames(features: features)
        let detection = detect(frames)
        let duration = features.duration.isFinite ? max(0, features.duration) : 0
        let tracker = RangeTracker(
            on: configuration.onThreshold, off: configuration.offThreshold,
            bridge: configuration.bridgeSeconds, minimumDuration: configuration.minimumDuration)
        var ranges: [InstrumentActivityResult.Instrument: [TimeRange]] = [:]
        var activity: [InstrumentActivityResult.Instrument: [MusicUnderstandingSession.TimedValue<Float>]] = [:]
        let floor = min(-1, configuration.curveFloor)
        for instrument in InstrumentActivityResult.Instrument.allCases {
            let score = detection.score[instrument] ?? []
            let level = detection.level[instrument] ?? []
            let mask = tracker.mask(score, rate: ActivityFrames.rate)
            ranges[instrument] = RangeTracker.ranges(of: mask, rate: ActivityFrames.rate, duration: duration)
            var curve: [MusicUnderstandingSession.TimedValue<Float>] = []
            curve.reserveCapacity(frames.count)
            for i in 0..<frames.count {
                var v: Float = 0
                if i < mask.count, mask[i], i < level.count, level[i].isFinite {
                    v = min(1, max(0, (level[i] - floor) / -floor))
                }
                curve.append(.init(time: Double(i) / ActivityFrames.rate, value: v))
            }
            activity[instrument] = curve
        }
        return InstrumentActivityResult(ranges: ranges, activity: activity)
    }

    /// The detector levels and scores of every frame.
    func detect(_ frames: ActivityFrames) -> Detection {
        let n = frames.count
        var detection = Detection()
        guard frames.bands > 0, n > 0 else {
            for instrument in InstrumentActivityResult.Instrument.allCases {
                detection.level[instrument] = [Float](repeating: -.infinity, count: n)
                detection.score[instrument] = [Float](repeating: -.infinity, count: n)
            }
            return detection
        }
        let e = frames.edges
        func bands(from lo: Double, to hi: Double) -> Range<Int> {
            let first = (0..<frames.bands).first { e[$0 + 1] > lo } ?? frames.bands
            let last = (0..<frames.bands).last { e[$0] < hi } ?? -1
            return first..<max(first, last + 1)
        }
        let all = 0..<frames.bands
        let low = bands(from: 0, to: 250)
        let sub = bands(from: 0, to: 120)
        let lowMid = bands(from: 120, to: 250)
        let mid = bands(from: 250, to: 5000)

        var mix = [Float](repeating: 0, count: n)
        var pAll = mix, hAll = mix, hLow = mix, pLow = mix, hMid = mix, rMid = mix, pMid = mix, hSub = mix, hLowMid = mix
        for f in 0..<n {
            hAll[f] = frames.sum(frames.harmonic, bands: all, frame: f)
            pAll[f] = frames.sum(frames.percussive, bands: all, frame: f)
            let rAll = frames.sum(frames.residual, bands: all, frame: f)
            mix[f] = hAll[f] + pAll[f] + rAll
            hLow[f] = frames.sum(frames.harmonic, bands: low, frame: f)
            hSub[f] = frames.sum(frames.harmonic, bands: sub, frame: f)
            hLowMid[f] = frames.sum(frames.harmonic, bands: lowMid, frame: f)
            pLow[f] = frames.sum(frames.percussive, bands: low, frame: f)
            hMid[f] = frames.sum(frames.harmonic, bands: mid, frame: f)
            rMid[f] = frames.sum(frames.residual, bands: mid, frame: f)
            pMid[f] = frames.sum(frames.percussive, bands: mid, frame: f)
        }
        let mixDB = mix.map { Smoothing.dB($0) }
        let reference = Smoothing.quantile(mixDB, 0.95) ?? -120
        let half = 2  // 0.5 s averages
        let mixS = Smoothing.movingAverage(mix, half: half)
        let audible: [Bool] = (0..<n).map { f in
            let l = Smoothing.dB(mixS[f])
            return l >= configuration.absoluteFloor && l - reference >= configuration.silenceLevel
        }
        let pS = Smoothing.movingAverage(pAll, half: half)
        let hS = Smoothing.movingAverage(hAll, half: half)
        let hLowS = Smoothing.movingAverage(hLow, half: half)
        let hLowMidS = Smoothing.movingAverage(hLowMid, half: half)
        let pLowS = Smoothing.movingAverage(pLow, half: half)
        let hMidS = Smoothing.movingAverage(hMid, half: half)
        let rMidS = Smoothing.movingAverage(rMid, half: half)
        let pMidS = Smoothing.movingAverage(pMid, half: half)

        var levels: [InstrumentActivityResult.Instrument: [Float]] = [:]
        var scores: [InstrumentActivityResult.Instrument: [Float]] = [:]
        for instrument in InstrumentActivityResult.Instrument.allCases {
            levels[instrument] = [Float](repeating: -.infinity, count: n)
            scores[instrument] = [Float](repeating: -.infinity, count: n)
        }
        // Pitch motion: median over ±0.5 s (robust to single onsets); tonal share: mean over ±0.5 s.
        let motion = Smoothing.movingMedian(frames.fluctuation, half: 5)
        // Phrase-level pitch motion: median over ±1.5 s (only when the test is on).
        let phraseMotion =
            configuration.vocalPhraseMotion > 0
            ? Smoothing.movingMedian(frames.fluctuation, half: 15) : [Float](repeating: 0, count: n)
        // Bass stability: the median over ±0.2 s of the harmonic energy below 120 Hz, and its maximum.
        let subMedian = Smoothing.movingMedian(hSub, half: 2)
        let subMaximum = Smoothing.movingMaximum(hSub, half: 2)
        let tonal = Smoothing.movingAverage(frames.tonalShare, half: 5)
        // Vocal variance: median over ±0.2 s (one drum hit or chord change must not carry a frame).
        let variance = frames.vocalVariance.map { Smoothing.movingMedian($0, half: 2) }
        let c = configuration
        var dL = [Float](repeating: -.infinity, count: n), dS = dL, bL = dL, bS = dL, oL = dL, oS = dL, vL = dL, vS = dL
        for f in 0..<n {
            // Drum: percussive energy, and its excess over the percussive leakage of tonal sounds.
            dL[f] = Smoothing.dB(pS[f]) - reference
            // Bass: sustained harmonic energy below 120 Hz (bass fundamentals).
            bL[f] = Smoothing.dB(subMedian[f]) - reference
            // Vocal: mid-band residual.
            vL[f] = Smoothing.dB(rMidS[f]) - reference
            // Other: mid harmonic energy beyond the upper partials of the bass.
            // The bass's upper partials: a fifth of its energy below 250 Hz, but at most its
            // 120-250 Hz energy (the partials next to 250 Hz), so a loud sub-bass does not hide
            // the synths and pads over it.
            oL[f] = Smoothing.dB(max(0, hMidS[f] - min(0.2 * hLowS[f], hLowMidS[f]))) - reference
            guard audible[f] else { continue }
            dS[f] = Smoothing.dB(pS[f]) - Smoothing.dB(hS[f]) - c.drumPercussiveRatio
            // Sustained (median within 10 dB of the maximum over ±0.2 s: not a kick's decaying
            // tail) and harmonic rather than percussive below 250 Hz.
            let steadiness = Smoothing.dB(subMedian[f]) - Smoothing.dB(subMaximum[f]) + 10
            let lowHarmonicOverPercussive = Smoothing.dB(hLowS[f]) - Smoothing.dB(pLowS[f])
            bS[f] = min(bL[f] - c.bassLevel, steadiness, lowHarmonicOverPercussive)
            oS[f] = oL[f] - c.otherLevel
            // Residual beyond what drums leave there (as much as their percussive part), over harmonic.
            let residualOverHarmonic = Smoothing.dB(max(0, rMidS[f] - pMidS[f])) - Smoothing.dB(hMidS[f])
            // Timbre that moves (vowels, consonants): not a held instrument tone with vibrato.
            let envelopeMoves =
                (variance.map { f < $0.count && $0[f] >= c.vocalMinimumVariance } ?? true)
                && (c.vocalPhraseMotion <= 0 || phraseMotion[f] >= c.vocalPhraseMotion)
            let voiceLike =
                motion[f] >= c.vocalPitchMotion && tonal[f] >= c.vocalTonalShare
                && residualOverHarmonic <= c.vocalMaximumResidualRatio && envelopeMoves
            vS[f] = voiceLike ? vL[f] - c.vocalResidualLevel : -.infinity
            // Strong vibrato or glides of a tonal foreground: a voice whose partials stay in the
            // harmonic part (slow vibrato of low partials moves less than a bin).
            if motion[f] >= c.vocalVibratoMotion && tonal[f] >= c.vocalTonalShare && envelopeMoves {
                vS[f] = max(vS[f], Smoothing.dB(hMidS[f]) - reference - c.vocalResidualLevel)
            }
        }
        levels[.drum] = dL; scores[.drum] = dS
        levels[.bass] = bL; scores[.bass] = bS
        levels[.other] = oL; scores[.other] = oS
        levels[.vocal] = vL; scores[.vocal] = vS
        detection.level = levels
        detection.score = scores
        return detection
    }
}
