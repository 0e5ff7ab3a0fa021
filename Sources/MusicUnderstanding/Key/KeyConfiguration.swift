import Foundation

extension KeyAnalyzer {
    /// Parameters of the key analysis, with their defaults.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Key profile compared with the chroma. Default: the edma profile (Faraldo et al. 2016).
        public var profile: KeyProfile = .edma
        /// Further profiles whose correlations are averaged, with equal weights, with those of
        /// `profile` (an ensemble: the average of Pearson correlations with unit-norm profiles is
        /// the correlation with their mean). Default: edma made polyphonic with the I, IV and V
        /// chords (Gómez 2006, sec. 4.2) and Aarden's Essen-folksong profile (``KeyProfile/aarden``):
        /// an audio profile of produced music, its chord-and-harmonics form, and the symbolic
        /// profile with the clearest major/minor contrast.
        ///
        /// Chosen by cross-validation on the halves of the evaluation corpus (tonal pieces and
        /// songs): every ensemble of one to three of eleven profiles (Krumhansl 1990, Temperley
        /// 1999, edma, Noland 2007, Aarden 2003, Bellman 2005, Temperley–Kostka–Payne 2007, Sapp's
        /// simple weights, and the polyphonic forms of edma, Krumhansl and Temperley) was scored
        /// on half A; of those tied best, the one nearest the previous default (edma + its
        /// polyphonic form) was taken and confirmed on half B (tonal MIREX 0.962 → 0.985, songs
        /// 0.953 → 1.000; half A tonal 0.979 → 1.000, songs 1.000). Aarden's weight is not
        /// tuned: results are the same from 1 to 1.5 times the others', worse at 0.5 or 3.
        public var additionalProfiles: [KeyProfile] = [KeyProfile.edma.polyphonic(threeChords: true), .aarden]
        /// Length of a time step when no bar grid is available, seconds. Default 1.
        public var stepDuration: Double = 1
        /// Length of the context window whose chroma scores each step, seconds. Default 12
        /// (a few bars at most tempi).
        public var contextDuration: Double = 12
        /// Cost of a change of key, in correlation × seconds: a modulation must raise the new
        /// key's (with ``decodesKeySignatures``, the new key signature's) correlation above the
        /// old one's by, e.g., 0.25 for 12 s to be reported. Default 3.
        ///
        /// Chosen with the signature timeline among 2, 3, 4, 6, 12 and 24: on half A of the
        /// evaluation corpus all tie (tonal and songs 1.000); 2 loses a tonal piece on half B;
        /// 3 is the largest that still finds a 20 s modulation to the mediant and back, while
        /// 8 s passages leaning to the dominant, the subdominant or the relative stay in the key
        /// (KeyTests). The 24-key timeline needs 6: at 3 it splits songs at their relative
        /// (songs 0.860 / 0.887).
        public var modulationPenalty: Double = 3
        /// Decode the timeline over the 12 key signatures (a major key and its relative minor
        /// as one), then choose the mode of each range from its summed correlations, instead of
        /// over the 24 keys at once (see `KeyTimeline.decodeSignatures()`, after W. Chai and
        /// B. Vercoe, "Detection of key change in classical piano music", ISMIR 2005). Default
        /// true: a song whose local evidence moves between its tonic and its relative (verse on
        /// i, chorus on III) no longer reads as a modulation, nor drifts to the subdominant key
        /// that neither of the two outscores alone. Measured on the evaluation corpus (MIREX
        /// weighted, half A / half B, with the default penalties 6 → 3): songs 1.000 / 0.933 →
        /// 1.000 / 1.000, tonal unchanged (1.000 / 0.985), formats unchanged (1.000), realmusic
        /// agreement with Essentia 0.833 / 0.500 → 1.000 / 0.550. Set false (with a penalty of
        /// 6) for the previous 24-key timeline, which also reports changes between relative keys.
        public var decodesKeySignatures: Bool = true
        /// Exponent applied to the chroma values of each vector before summing; below 1 it
        /// compresses, so that sustained soft chord tones count beside loud ones. Default 0.5.
        public var chromaExponent: Double = 0.5
        /// Normalise each tonal vector to unit maximum before summing, so every tonal moment
        /// counts alike regardless of loudness (as Essentia's key extractor averages frame-wise
        /// normalised HPCPs). Default false.
        public var normalizeVectors: Bool = false
        /// Before correlating, pitch classes of a summed chroma weaker than this share of its
        /// strongest one are set to zero, so that only the salient pitch classes shape the match
        /// (as Essentia's KeyExtractor does with its `pcpThreshold`). Default 0.2.
        public var pitchClassThreshold: Double = 0.2
        /// Weight, beside the mean profile correlation, of the share of a range's time whose
        /// best-matching triad is a candidate's tonic triad, when the tonic stage chooses between
        /// the timeline's key, its relative and the key a fifth below (see `tonicKey`); 0
        /// leaves the choice to the correlation and the closing chord. Default 1. The evidence
        /// for the value is in docs/analyses/key.md.
        public var tonicChordWeight: Double = 1
        /// Weight, in the same stage, of the Pearson correlation of the closing chord (see
        /// ``finalChordDuration``) with a candidate's tonic triad, for the last range of an input
        /// that ends in a release. Default 0.25: popular songs often close on an added-sixth
        /// chord (I6 reads as the relative minor's triad) or fade out, so the closing chord is
        /// one cue among others, not the decision (docs/analyses/key.md).
        public var closingChordWeight: Double = 0.25
        /// Seconds of tonal material at the end of the input whose chroma is the closing chord
        /// (see ``closingChordWeight``); 0 disables that cue. Default 3: a held final chord with
        /// its release, one or two bars at most tempi. The cue counts only when the input ends in
        /// a release (see ``endingLevel``). Known limitation: a fade-out also ends in silence,
        /// and its closing passage is whatever the fade stops on.
        public var finalChordDuration: Double = 3
        /// The closing chord counts only when the input comes to an end: the spectral energy of
        /// its last half second is below this share of the median energy of its tonal vectors.
        /// Default 0.01 (-20 dB): a final chord that has been released, not music cut off (an
        /// excerpt, a loop), whose last chord says nothing about the tonic.
        public var endingLevel: Float = 0.01
        /// Vectors whose harmonic energy (sustained spectral peaks, see ``ChromaFeatures``) is
        /// below this share of their spectral energy are not tonal and add nothing to the key's
        /// chroma. Default 0.1 (drum-heavy passages of songs still count; measured on the
        /// evaluation corpus, 0.5 lost a song key).
        public var minimumTonalShare: Float = 0.1
        /// Vectors with at least this share of their spectral energy in sustained peaks are
        /// clearly tonal (``minimumTonalDuration``). Default 0.5: white, pink and brown noise
        /// measure 0.05-0.08 per vector (at most 0.36, brown noise over 5 minutes), clicks 0,
        /// tonal music a median of 0.8-0.9, songs with drums 65-100 % of their vectors above it.
        public var clearlyTonalShare: Float = 0.5
        /// Least clearly tonal material, seconds, for a key to be reported. Default 2.
        public var minimumTonalDuration: Double = 2
        /// Least number of pitch classes that reach half the strength of the strongest in the
        /// whole input's (compressed) chroma for a key to be reported. Default 3, a triad: a
        /// sine or a single note with its harmonics gives one or two, a bare fifth two, pitched
        /// drums one or two; every piece of the evaluation corpus at least five.
        public var minimumPitchClasses: Int = 3
        /// Least correlation of the whole input's chroma with the best key for a key to be
        /// reported. Default 0.4.
        public var minimumCorrelation: Double = 0.4

        /// The default configuration.
        public init() {}
    }
}
