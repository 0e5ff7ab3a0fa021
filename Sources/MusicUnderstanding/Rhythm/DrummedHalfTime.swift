import Foundation

/// Drummed half time, for the metrical level of step 5: a kit whose kick falls on every tracked
/// beat and whose snare falls between them has been tracked at half its tempo.
///
/// A kick-snare alternation on the half note makes the slow level the most periodic, so the
/// tempo estimate picks it, while listeners tap the level that the snare's backbeat and the
/// hi-hat fill. In a slow drummed song tracked at its own beat, the kick falls on beats 1 and 3
/// and the snare on 2 and 4, so the low band alternates from one tracked beat to the next; in a
/// half-time reading every tracked beat holds a kick and the low band does not alternate. The
/// bass-drum and snare pattern is Goto's cue to the beat level ("An audio-based real-time beat
/// tracking system for music with or without drum-sounds", J. New Music Research 30(2), 2001,
/// sec. 4); drums are read from the harmonic/percussive separation (Fitzgerald 2010, the shared
/// ``HarmonicPercussiveFeatures``), as instrument activity reads them, since perceived speed
/// follows the percussive part of a mix (Elowsson, Friberg, Madison & Paulin 2013, "Modelling
/// the speed of music using features from harmonic/percussive separated audio", ISMIR).
extension RhythmAnalyzer {
    /// Whether the input is drummed (``drummedShare(_:)`` at least
    /// ``Configuration/LevelSettings/drummedShare``) and its tracked `beats` carry no backbeat
    /// (``lowBandAlternation(_:beats:radius:)`` below ``Configuration/LevelSettings/backbeatAlternation``).
    func isDrummedHalfTime(_ separation: HarmonicPercussiveFeatures?, lowBand: [Float], beats: [Int], radius: Int) -> Bool {
        guard let share = drummedShare(separation), share >= configuration.level.drummedShare,
            let alternation = lowBandAlternation(lowBand, beats: beats, radius: radius)
        else { return false }
        return alternation < configuration.level.backbeatAlternation
    }

    /// The share of the audible time (mix energy within 45 dB of its 95th percentile, 0.5 s
    /// means) whose percussive energy comes within ``Configuration/LevelSettings/drumPercussiveRatio``
    /// of its harmonic energy (all bands, 0.5 s means), or `nil` without the separation or
    /// without audible time.
    func drummedShare(_ separation: HarmonicPercussiveFeatures?) -> Double? {
        guard let separation, separation.bandCount > 0, separation.frameRate > 0 else { return nil }
        let bands = separation.bandCount
        let n = min(separation.harmonic.count, separation.percussive.count, separation.residual.count) / bands
        guard n > 0 else { return nil }
        var harmonic = [Float](repeating: 0, count: n), percussive = harmonic, mix = harmonic
        for v in 0..<n {
            var h: Float = 0, p: Float = 0, r: Float = 0
            for b in 0..<bands {
                h += separation.harmonic[v * bands + b]
                p += separation.percussive[v * bands + b]
                r += separation.residual[v * bands + b]
            }
            harmonic[v] = h
            percussive[v] = p
            mix[v] = h + p + r
        }
        let half = max(1, Int((0.25 * separation.frameRate).rounded()))
        let h = Smoothing.movingAverage(harmonic, half: half), p = Smoothing.movingAverage(percussive, half: half)
        let level = Smoothing.movingAverage(mix, half: half).map { Smoothing.dB($0) }
        guard let loud = Smoothing.quantile(level, 0.95) else { return nil }
        let ratio = Float(configuration.level.drumPercussiveRatio)
        var audible = 0, drummed = 0
        for v in 0..<n where level[v] >= loud - 45 {
            audible += 1
            if Smoothing.dB(p[v]) - Smoothing.dB(h[v]) >= ratio { drummed += 1 }
        }
        return audible > 0 ? Double(drummed) / Double(audible) : nil
    }

    /// How much the low band alternates between consecutive `beats`: for each window of 8 beats
    /// (two bars of four, in steps of 2), `|even − odd| / (even + odd)` of the sums of the largest
    /// low-band onset strength within `radius` frames of each beat, and the median over the
    /// windows (a beat dropped or added turns the parity of a few windows only); 0 without
    /// alternation, 1 when every other beat is silent in the low band. `nil` with fewer than 8 beats.
    func lowBandAlternation(_ lowBand: [Float], beats: [Int], radius: Int) -> Double? {
        guard beats.count >= 8, !lowBand.isEmpty else { return nil }
        let peaks: [Double] = beats.map { b in
            let peak = Double(PeakPicking.windowMaximum(lowBand, around: b, radius: radius))
            return peak.isFinite ? peak : 0
        }
        var values: [Double] = []
        for start in stride(from: 0, through: peaks.count - 8, by: 2) {
            var even = 0.0, odd = 0.0
            for k in 0..<8 {
                if k % 2 == 0 { even += peaks[start + k] } else { odd += peaks[start + k] }
            }
            values.append(even + odd > 0 ? abs(even - odd) / (even + odd) : 0)
        }
        values.sort()
        return values[values.count / 2]
    }
}
