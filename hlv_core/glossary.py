"""Plain words for every concept, metric and training method HLV Lens shows.

One place for the names people read: the app's explanations, its Glossary page and the HTML
disagreement report all use these entries, so a metric is called the same everywhere (the CLI
keeps the machine keys, e.g. ``po_jsd``, which the Glossary page maps to these names). Pure data (no Streamlit).

Each :class:`Term` answers, in this order: what it means (one or two sentences), how to read a
high and a low value, a concrete example, and, one click deeper, how it is computed and where it
comes from (paper and section).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "METHOD_NAMES",
    "METRIC_NAMES",
    "PAPERS",
    "TERMS",
    "Term",
    "method_label",
    "metric_label",
    "paper_label",
    "term",
]


@dataclass(frozen=True)
class Term:
    """One glossary entry: plain words first, the paper one click deeper.

    Parameters
    ----------
    title : str
        The name shown to people.
    meaning : str
        What it is, in plain words (one or two sentences).
    reading : str
        How to read high and low values.
    example : str
        A concrete case.
    technical : str
        The formula or procedure and its source, paper and section (shown one click deeper).

    Examples
    --------
    >>> entry = term("soft_label")
    >>> entry.title
    'Soft label'
    >>> "Kurniawan" in entry.technical
    True
    """

    title: str
    meaning: str
    reading: str
    example: str
    technical: str


#: The five papers HLV Lens implements, by the names people cite them with.
PAPERS: dict[str, str] = {
    "kurniawan": "Kurniawan et al., Training and Evaluating with Human Label Variation",
    "stutz": "Stutz et al., Evaluating AI systems under uncertain ground truth",
    "marchal": "Marchal et al. (2022), Establishing Annotation Quality in Multi-Label Annotations",
    "perseval": "Lo, Casola et al., PERSEVAL: A Framework for Perspectivist Classification "
                "Evaluation",
    "basile": "Basile, A Measure of Systematic Disagreement",
}

TERMS: dict[str, Term] = {
    "soft_label": Term(
        "Soft label",
        "The share of annotators who chose each label for an item, kept as a distribution "
        "instead of being reduced to one winner.",
        "A soft label near 100% for one class means annotators agree; an even spread means the "
        "item is genuinely contested.",
        "3 of 5 annotators say 'offensive', 2 say 'not offensive': the soft label is 60% / 40%, "
        "where majority voting would keep only 'offensive'.",
        "P_ik = n_ik / n_i, the count of annotations of label k on item i over the item's "
        "annotations (multi-label: the share of annotators who ticked k). Kurniawan et al., "
        "section 3.",
    ),
    "majority_label": Term(
        "Majority label",
        "The single label most annotators chose for an item: the 'one gold label' that "
        "traditional evaluation uses.",
        "It hides how many people disagreed: 51% and 100% majorities look the same.",
        "Votes 3 'yes' / 2 'no' and 5 'yes' / 0 'no' both become 'yes'.",
        "argmax_k P_ik; ties go to the first label in the inventory order (docs/conventions.md). "
        "Multi-label: the labels chosen by more than half of the annotators.",
    ),
    "hard_metric": Term(
        "Hard metric",
        "A score that compares the model's top label with the majority label, ignoring how "
        "confident the model was and how divided the annotators were.",
        "Higher is better (0 to 1). A model that matches every majority scores 1 even if the "
        "humans were split 51/49.",
        "Hard accuracy: share of items where the model's most likely label is the majority label.",
        "Accuracy and F1 of argmax Q against argmax P (multi-label: sets of labels above 0.5). "
        "Kurniawan et al., section 3.1.",
    ),
    "soft_metric": Term(
        "Soft metric",
        "A score that compares the model's whole probability distribution with the annotators' "
        "distribution, so a model is rewarded for reproducing human disagreement.",
        "Higher is better (0 to 1): 1 means the model's probabilities equal the annotators' "
        "shares on every item.",
        "Humans 60/40, model 70/30: soft accuracy for the item is min(.6,.7)+min(.4,.3) = 0.9.",
        "Soft accuracy = (1/N) sum_ik min(P_ik, Q_ik); soft micro / macro F1 use the same "
        "min-overlap as true positives. Kurniawan et al., section 3.1 (multi-label: section "
        "3.2).",
    ),
    "jsd": Term(
        "Jensen-Shannon similarity (1 − JSD)",
        "How close two distributions are, from information theory: 1 minus the Jensen-Shannon "
        "divergence between the model's and the annotators' distributions.",
        "Higher is better (0 to 1). Kurniawan et al. show it can give a wrong prediction a score "
        "near its maximum, so read it beside soft accuracy.",
        "Humans 50/50, model 100/0: similarity 0.69, although the model ignores one view.",
        "1 − (1/N) sum_i JSD(p_i, q_i) in bits, terms below 1e-8 dropped. Kurniawan et al., "
        "section 3.1 (PO-JSD; multi-label: per class, section 3.2).",
    ),
    "entropy_correlation": Term(
        "Entropy correlation",
        "Whether the model is unsure on the same items where the annotators disagree.",
        "From −1 to 1; near 1 means the model's uncertainty tracks human disagreement; near 0 "
        "means it does not.",
        "A model that is 50/50 exactly on the items humans split on, and sure elsewhere, "
        "scores close to 1.",
        "Pearson correlation of the items' normalised entropies of P and Q (multi-label: per "
        "class, then averaged). Undefined when either side has constant entropy. Kurniawan et "
        "al., section 3.1 (multi-label: section 3.2).",
    ),
    "alpha": Term(
        "Krippendorff's alpha",
        "Agreement among annotators beyond what chance would give, for any number of "
        "annotators and missing labels.",
        "1 = perfect agreement, 0 = no better than chance, below 0 = systematic disagreement. "
        "Values below ~0.67 are usually called low, but in subjective tasks low agreement can "
        "be signal, not noise.",
        "Two annotators who agree on 90% of items where chance alone would give 50%: "
        "alpha = 1 − 0.1/0.5 = 0.8.",
        "alpha = 1 − D_o / D_e, observed over expected disagreement from the coincidence "
        "matrix, with nominal / ordinal / interval / ratio distances (Krippendorff 2011, "
        "Computing Krippendorff's alpha-reliability, sections on the coincidence matrix and "
        "the difference functions).",
    ),
    "pairwise_alpha": Term(
        "Pairwise alpha",
        "Krippendorff's alpha computed for one pair of annotators on the items both labelled.",
        "High: the two tend to give the same labels; negative: they systematically differ.",
        "Two annotators who always pick opposite labels on shared items have a strongly "
        "negative pairwise alpha.",
        "alpha on the two annotators' shared items (at least `min_shared`); the matrix of all "
        "pairs drives the annotator graph and sigma. Basile, section 3.",
    ),
    "kappa": Term(
        "Cohen's, Fleiss' and Light's kappa",
        "Older agreement-beyond-chance scores: Cohen's for two annotators, Fleiss' for a fixed "
        "number per item, Light's as the mean of Cohen's over pairs.",
        "Same reading as alpha: 1 perfect, 0 chance, negative worse than chance.",
        "Two annotators with 80% raw agreement where chance gives 50%: kappa = 0.6.",
        "kappa = (p_o − p_e) / (1 − p_e). Cohen (1960), Fleiss (1971), Light (1971).",
    ),
    "multilabel_agreement": Term(
        "Multi-label agreement",
        "Agreement when each annotator may tick several labels per item: partial matches "
        "count, and chance agreement is estimated from simulated datasets in which every "
        "annotator labels at random in their own habits.",
        "Read like alpha: 1 perfect, 0 chance level.",
        "Annotator A ticks {cause, contrast}, B ticks {cause}: they partly agree.",
        "Observed set-overlap agreement (soft-match, augmented kappa, F1) against the expected "
        "agreement of B simulated datasets: per coder, each item's number of labels is drawn "
        "from that coder's own distribution of set sizes and the labels from that coder's "
        "label shares (counts / total labels), without replacement; chance-adjusted = (A_o − "
        "A_e) / (1 − A_e). Marchal et al. (2022), section 4 (measures: section 3).",
    ),
    "sigma": Term(
        "Systematicity (sigma)",
        "How much the disagreement is organised into camps, i.e. groups of annotators who "
        "agree with each other and disagree with the others, rather than scattered at random.",
        "Near 1: annotators split into consistent camps (systematic disagreement); lower: "
        "disagreement is unstructured. Compare with sigma on shuffled data (sigma_rnd).",
        "Two political camps labelling hate speech: each camp agrees inside and disagrees "
        "across, so most triangles of annotators are balanced and sigma is high.",
        "Share of balanced triangles in the signed annotator graph (structural balance "
        "theory): the edge of a pair is + when its pairwise alpha is at least the overall "
        "alpha, − when below. Basile, section 3 (validation: section 4).",
    ),
    "camps": Term(
        "Camps",
        "Groups of annotators that agree among themselves, found from the signed annotator "
        "graph.",
        "Camps that line up with annotator traits (age, gender, background) suggest the "
        "disagreement reflects perspectives.",
        "Annotators who see a tweet as ironic end up in one camp, those who do not in another.",
        "Per connected component of the signed pairwise-alpha graph of Basile, section 3: "
        "when every cycle is balanced, its unique split into two camps (+ edges inside, − "
        "across; Davis 1967, cited there); otherwise the sign of the leading eigenvector of "
        "the signed adjacency (a spectral split), refined node by node; see "
        "hlv_core.balance.camps.",
    ),
    "certainty": Term(
        "Annotation certainty",
        "How sure we can be about an item's true label, given that the annotators disagree and "
        "are not perfectly reliable.",
        "Near 1: the experts' evidence points to one label; low: several labels remain "
        "plausible, so grading a model against one 'correct' answer is unfair on this item.",
        "Of 5 plausibility draws for a skin case, 3 put 'eczema' first, 1 'psoriasis' and 1 "
        "'acne': the top-1 certainty is 3/5 = 0.60.",
        "For every label y, the share of plausibility samples whose top label is y; the "
        "certainty is the largest of these shares over the labels (top-k: the same with the "
        "samples' top-k sets). It needs no point estimate. Stutz et al., section 2.3.",
    ),
    "reliability": Term(
        "Reliability",
        "How much we trust each annotation: higher reliability counts every annotation as more "
        "evidence.",
        "Low reliability: even unanimous annotators leave room for doubt; high: the annotators' "
        "majority is taken as near-certain.",
        "Vote counts: with reliability 10, two annotators saying 'eczema' weigh like twenty. "
        "Ranked answers (PrIRN): the IRN scores are normalised to sum 1 first, so with "
        "reliability 10 all readers together weigh like ten annotators, however many there "
        "are: IRN 0.8 / 0.2 becomes Dirichlet(8 + prior, 2 + prior).",
        "Multiplies the evidence before the Dirichlet prior is added: the counts (Dirichlet, "
        "Stutz et al., App. A) or the normalised IRN, so r is the effective number of "
        "annotators (PrIRN, App. B.3); Plackett-Luce repeats each reader r times (App. B.4). "
        "Stutz et al., section 2.2.",
    ),
    "plausibility": Term(
        "Plausibility",
        "A distribution over the possible labels of an item, drawn from the aggregation model; "
        "many draws show how uncertain the ground truth is.",
        "Draws that always put the same label first mean a certain ground truth.",
        "For one skin case, 1,000 draws: 'eczema' first 700 times, 'psoriasis' 300 times.",
        "Samples from a Dirichlet on (reliability x evidence + prior) or from the Plackett-Luce "
        "posterior. Stutz et al., sections 2.1-2.2 (models: App. A, B.3, B.4).",
    ),
    "ua_accuracy": Term(
        "Uncertainty-adjusted accuracy",
        "Accuracy of a model when the ground truth itself is uncertain: each item counts by how "
        "plausible the model's answer is, not by a single gold label.",
        "Higher is better (0 to 1). It is lower than the usual accuracy on items where experts "
        "disagree.",
        "Model says 'eczema' on a case where eczema is first in 70% of plausibility draws: it "
        "earns 0.7 for that case.",
        "Mean over items and plausibility samples of whether the sample's top label is in the "
        "model's top-k labels (set accuracy: whether the two top-k sets are equal). Stutz et "
        "al., section 2.4.",
    ),
    "irn": Term(
        "Inverse rank normalisation (IRN)",
        "Turns each expert's ranked list of answers into scores: the first answer weighs most.",
        "A label many experts rank high gets a large score.",
        "Two readers rank (eczema, psoriasis) and (eczema): eczema 1 + 1 = 2, psoriasis 1/2; "
        "normalised once after summing: eczema 0.8, psoriasis 0.2.",
        "Each reader gives block b of their ranking the weight 1/b (the paper shares it among "
        "the block's tied labels; the released code does not: both offered); the weights are "
        "summed over readers and normalised once, after aggregation, never per reader. Stutz "
        "et al., App. B.2.",
    ),
    "plackett_luce": Term(
        "Plackett-Luce model",
        "A statistical model of rankings: it infers how strongly each label is preferred from "
        "the experts' ranked answers.",
        "Its samples are slower to draw but use the full order of every ranking.",
        "Experts ranking (A, B) and (B, A) leave A and B equally plausible.",
        "Gibbs sampler with Gamma(1, 1) priors and burn-in, extended to partial rankings with "
        "ties and unranked labels. Stutz et al., App. B.4.",
    ),
    "prior": Term(
        "Prior pseudo-count",
        "How much weight every label gets before any annotation is seen.",
        "Small: the annotations decide; large: every label stays plausible.",
        "With 400 possible diagnoses, a prior of 0.1 each adds up to 40 imaginary annotators.",
        "Dirichlet concentration a0 added to every class (default 0.1 for vote counts, 0.01 "
        "for PrIRN as in the reference notebook). Stutz et al., App. A and B.3.",
    ),
    "perseval": Term(
        "Perspectivist evaluation (PERSEVAL)",
        "Scores a model per annotator: how well it predicts each person's own labels, then "
        "averages over people, so minority views count as much as the majority.",
        "Higher is better. A model good on average but bad for some annotators shows a low "
        "per-annotator score.",
        "A model that always agrees with the majority scores well globally but poorly for the "
        "annotators who often dissent.",
        "F1 / accuracy per annotator (and per text), averaged; splits keep each annotator's "
        "texts apart. Lo, Casola et al., section 3.1 (data split) and section 5 (evaluation "
        "metrics).",
    ),
    "rank_centrality": Term(
        "Rank centrality (case review)",
        "Turns many pairwise expert judgements ('model A is better on this case than B') into "
        "one ranking of models.",
        "A higher score: the model wins more pairwise judgements, weighted by whom it beat.",
        "If experts prefer A over B and B over C, A ranks first.",
        "Stationary distribution of the random walk on the comparison graph (Negahban, Oh "
        "and Shah 2012), as used in the meta-evaluation of Kurniawan et al., section 6.1 "
        "(the method ranking of section 6.3).",
    ),
    "training_method": Term(
        "Training method",
        "How the disagreeing labels are turned into training examples: keep every label, keep "
        "the majority, keep the distribution, or model each annotator.",
        "Compare methods by the soft and hard metrics; Kurniawan et al. find repeated and soft "
        "labelling strong.",
        "Votes 3 'yes' / 2 'no': majority voting trains on 'yes'; soft labelling on 60/40; "
        "repeated labelling on five examples.",
        "The 14 methods of Kurniawan et al., section 4, Table 3, each with a linear model here.",
    ),
    "bootstrap_ci": Term(
        "Confidence interval (bootstrap)",
        "The range the score would likely fall in if the items had been sampled again.",
        "Narrow: the score is stable; wide, or overlapping another model's: the difference may "
        "be chance.",
        "0.71 [0.68, 0.74] on 1,000 resamples.",
        "Percentile interval over resamples of the items (or annotators), fixed seed (Efron "
        "and Tibshirani 1993, An Introduction to the Bootstrap, chapter 13).",
    ),
    "coverage": Term(
        "Coverage",
        "How many of the dataset's items a model has predictions for; scores use only those.",
        "Low coverage: the score may not describe the whole dataset.",
        "'scored on 6 of 8 items'.",
        "Items with both annotations and predictions (HLV Lens convention, "
        "docs/conventions.md).",
    ),
    "task": Term(
        "Task type",
        "What kind of answer each annotator gives: one label (multiclass), several labels "
        "(multi-label), a number on a scale (rating), a ranked list (ranking) or free opinions.",
        "It decides which measures apply.",
        "'Which diagnoses, in order?' is a ranking task.",
        "Detected from the file format, a schema or the evidence in the cells; the import report "
        "says which (HLV Lens convention, docs/conventions.md).",
    ),
    "level": Term(
        "Level of measurement",
        "Whether labels are names (nominal), ordered (ordinal), or numbers with distances "
        "(interval, ratio); it decides how far apart two different labels count.",
        "For ratings, 4 vs 5 is a small disagreement only at the ordinal or interval level.",
        "A 1-5 offensiveness scale is ordinal: 1 vs 5 disagrees more than 4 vs 5.",
        "The difference function of Krippendorff's alpha (Krippendorff 2011, section on the "
        "difference functions).",
    ),
    "review_judgement": Term(
        "Judgement (case review)",
        "Your answer, for one case and two anonymous model outputs, to 'which output matches how "
        "people would label this case better?': the first, the second, both acceptable or "
        "neither acceptable.",
        "Each judgement is one vote in a pairwise contest between two models; many votes over "
        "many cases decide the models' human scores. Both/neither count as comparisons "
        "without a winner.",
        "Case 12: output A gives 'liable' 0.7, output C gives 'liable' 0.3; you think the case "
        "is clearly liable, so you answer 'A is more accurate'.",
        "Stored as (reviewer, case, model pair, choice) with the time in UTC; only your latest "
        "judgement of a case and pair counts; undoing keeps the row, marked withdrawn "
        "(Kurniawan et al., section 6.1).",
    ),
    "lewidi_soft": Term(
        "LeWiDi Task A (soft labels)",
        "The shared task's first track: a system predicts, for every item, how the annotators' "
        "answers are distributed, and is scored by the distance between that distribution and "
        "the real one.",
        "Lower is better: 0 means the predicted distribution equals the annotators' on every "
        "item.",
        "Annotators 70% 'sarcastic' / 30% 'not', system 50/50: Manhattan distance "
        "|0.7 − 0.5| + |0.3 − 0.5| = 0.4 for that item.",
        "LeWiDi 2025: mean over items of the Manhattan distance (MP; VariErrNLI per label, "
        "averaged) or of the Wasserstein distance between the score histograms (CSC, "
        "Paraphrase), rounded to 5 decimals as in the organisers' scorer. LeWiDi 2023: "
        "cross-entropy of the predicted soft label against the annotators'.",
    ),
    "lewidi_pe": Term(
        "LeWiDi Task B (perspectivist)",
        "The shared task's second track: a system predicts each annotator's own answer on every "
        "item, and is scored by how far those predictions are from what each person said.",
        "Lower is better: 0 means every annotator's answer was predicted exactly.",
        "An item with 4 annotators where the system gets 3 of their labels right: error rate "
        "0.25 for that item.",
        "LeWiDi 2025: mean over items of the error rate (MP, VariErrNLI per label) or of the "
        "absolute distance between predicted and given scores over the scale's range (CSC, "
        "Paraphrase), rounded to 5 decimals. LeWiDi 2023's hard task: micro F1 of the "
        "majority label (higher is better).",
    ),
    "paired_bootstrap": Term(
        "Paired bootstrap test",
        "Whether one system is really ahead of the next: the test items are resampled many "
        "times and both systems are scored on the same resample, to see how often the order "
        "flips.",
        "A small p-value (below 0.05) and an interval for the difference that excludes 0: "
        "the ranking is unlikely to be luck of the test items; otherwise the two systems are "
        "tied within what the data can tell.",
        "Rank 1 scores 0.210 and rank 2 0.214, difference interval [−0.002, 0.010], p = 0.21: "
        "the two are not separable on this test set.",
        "Difference d of the mean per-item scores; the same B resamples of the items for both "
        "systems; p = (1 + #{|d* − d| ≥ |d|}) / (B + 1) (two-sided, percentile interval; "
        "Koehn 2004, Statistical significance tests for machine translation evaluation, "
        "section 4).",
    ),
    "majority_share": Term(
        "Majority share",
        "The share of an item's annotators who chose its majority label.",
        "1.00 means everyone agreed; 0.50 on a yes / no item means a split vote; with three "
        "labels the lowest possible value is about 0.33.",
        "4 of 5 annotators say 'offensive': majority share 0.80.",
        "max_k P_ik, the largest entry of the item's soft label (multi-label: of the per-label "
        "shares); the soft label of Kurniawan et al., section 3.",
    ),
    "pair_agreement": Term(
        "Pair agreement",
        "Pick two annotators of the item at random: the chance that they gave the same label.",
        "1.00: every pair agrees; near 0: almost every pair disagrees. Unlike the majority "
        "share it counts every disagreement, not only those with the winner.",
        "Votes 3 'yes' / 2 'no': 4 of the 10 pairs agree on 'yes' and 1 on 'no', so 0.40.",
        "sum_k n_ik (n_ik - 1) / (n_i (n_i - 1)), the per-item observed agreement of Fleiss' "
        "kappa; multi-label: averaged over the labels someone ticked, each as yes / no; "
        "ranked lists: the annotators' top choices compared; not defined for items with one "
        "annotator (Fleiss 1971, the per-item agreement P_i).",
    ),
    "item_entropy": Term(
        "Normalised entropy",
        "How spread out an item's labels are, from 0 (everyone chose the same label) to 1 "
        "(every label equally often).",
        "High values are the contested items, which the item table lists first.",
        "Two labels, votes 5 / 5: entropy 1.00; votes 9 / 1: 0.47; votes 10 / 0: 0.",
        "-sum_k P_ik ln P_ik / ln K over the soft label P_i with K labels; multi-label: the mean "
        "binary entropy over labels (the normalised entropy of Kurniawan et al., section 3.1, "
        "entropy correlation).",
    ),
    "perseval_task": Term(
        "Named and unnamed task (PERSEVAL)",
        "What a model may know about the people it is tested on. Named: their traits (e.g. "
        "age group, background), so it can tailor answers to kinds of people. Unnamed: only "
        "an anonymous id, so it has to learn about them from a few of their own labels "
        "(adaptation).",
        "Named scores show whether traits help a model serve each group; an unnamed task "
        "without adaptation cannot tell the test users apart.",
        "A hate-speech model told 'annotator is 18-25, from group B' (named) versus only "
        "'annotator 417' plus five of their labels (unnamed, with adaptation).",
        "Named when the dataset has annotator traits, unnamed otherwise. Lo, Casola et al., "
        "section 3.2 (user representation).",
    ),
    "adaptation": Term(
        "Adaptation (PERSEVAL)",
        "A few labels of each test user that the model may see before it is scored on that "
        "user's other labels.",
        "None: the model knows nothing of the test users' own labels. Added to training: they "
        "join the training data. Separate step: used after training, as a personalisation "
        "step.",
        "5% of a test user's labels are shown to the model; it is scored on the other 95%.",
        "Adaptation instances are drawn per test user (share set on the page, PERSEVAL: 5%); "
        "their texts are never test texts. Lo, Casola et al., section 3.1 (data split: "
        "adaptation at training or at inference time).",
    ),
    "majority_agreement": Term(
        "Agreement with the majority",
        "How often an annotator gave the label most annotators gave on the same item.",
        "High: the annotator usually sides with the majority; low: they often see items "
        "differently (an outlier, or a minority perspective worth a look).",
        "An annotator who matches the majority on 70 of 100 shared items scores 0.70.",
        "Items with at least two annotators; the majority is the item's majority label (ties to "
        "the first label in the label order), the annotator included (HLV Lens convention, "
        "docs/conventions.md; hlv_core.annotators.majority_agreement).",
    ),
    "support": Term(
        "Support",
        "How much evidence stands behind a number: here, how many annotator pairs and shared "
        "items an annotator's mean agreement is based on.",
        "A mean over 2 pairs can be extreme by luck; trust rankings only among annotators with "
        "enough support.",
        "An annotator with mean alpha 0.95 from a single pair sharing 3 items tells little.",
        "Number of defined pairwise alphas and the items those pairs share; the Agreement page "
        "ranks only annotators with at least the chosen number of pairs (HLV Lens convention, "
        "docs/conventions.md; pairwise alpha: Basile, section 3).",
    ),
}

#: Metric key (as in :func:`hlv_core.soft_metrics.evaluate`) -> name shown to people.
METRIC_NAMES: dict[str, str] = {
    "hard_accuracy": "Hard accuracy",
    "hard_micro_f1": "Hard micro F1",
    "hard_macro_f1": "Hard macro F1",
    "soft_accuracy": "Soft accuracy",
    "soft_micro_f1": "Soft micro F1",
    "soft_macro_f1": "Soft macro F1",
    "po_jsd": "JS similarity (1 − JSD)",
    "entropy_correlation": "Entropy correlation",
    "lewidi_cross_entropy": "Cross-entropy (LeWiDi 2023)",
    "lewidi_manhattan": "Manhattan distance (LeWiDi 2025)",
    "lewidi_wasserstein": "Wasserstein distance (LeWiDi 2025)",
    "selection": "Selection score",
    "average_manhattan": "Manhattan distance (LeWiDi 2025, Task A)",
    "multilabel_average_manhattan": "Manhattan distance per label (LeWiDi 2025, Task A)",
    "average_wasserstein": "Wasserstein distance (LeWiDi 2025, Task A)",
    "error_rate": "Error rate per annotator (LeWiDi 2025, Task B)",
    "multilabel_error_rate": "Error rate per annotator and label (LeWiDi 2025, Task B)",
    "normalised_absolute_distance": "Normalised absolute distance (LeWiDi 2025, Task B)",
    "cross_entropy": "Cross-entropy (LeWiDi 2023, soft)",
    "micro_f1": "Micro F1 (LeWiDi 2023, hard)",
}

#: Training method abbreviation -> "Name (ABBR)" as in Kurniawan et al., Table 3.
METHOD_NAMES: dict[str, str] = {
    "ReL": "Repeated labelling",
    "MV": "Majority voting",
    "AR": "Annotator ranking",
    "ARh": "Annotator ranking (hard)",
    "AL": "Ambiguous labelling",
    "SL": "Soft labelling",
    "SLMV": "Soft + majority multitask",
    "AE": "Annotator ensemble",
    "AEh": "Annotator ensemble (hard)",
    "JSD": "Jensen-Shannon loss",
    "SmF1": "Soft micro F1 loss",
    "SMF1": "Soft macro F1 loss",
    "LA-min": "Loss aggregation (min)",
    "LA-max": "Loss aggregation (max)",
}


def term(key: str) -> Term:
    """The glossary entry of a key (one of :data:`TERMS`).

    Parameters
    ----------
    key : str
        Entry key, e.g. ``"soft_label"``, ``"sigma"``, ``"rank_centrality"``.

    Returns
    -------
    Term
        The entry.

    Raises
    ------
    KeyError
        Unknown key (the message lists the valid keys).

    Examples
    --------
    >>> term("jsd").title
    'Jensen-Shannon similarity (1 − JSD)'
    >>> term("no such term")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    KeyError: "no glossary term 'no such term'; known: [...]"
    """
    try:
        return TERMS[key]
    except KeyError:
        raise KeyError(f"no glossary term {key!r}; known: {sorted(TERMS)}") from None


def metric_label(name: str) -> str:
    """Human name of a metric key.

    Parameters
    ----------
    name : str
        A metric key of :func:`hlv_core.soft_metrics.evaluate` (or any column name).

    Returns
    -------
    str
        The name people read; unknown keys (e.g. a per-class column) with underscores replaced
        by spaces.

    Examples
    --------
    >>> metric_label("po_jsd")
    'JS similarity (1 − JSD)'
    >>> metric_label("f1_class_pos")
    'f1 class pos'
    """
    return METRIC_NAMES.get(name, str(name).replace("_", " "))


def method_label(abbr: str, *, with_abbr: bool = True) -> str:
    """Human name of a training method of Kurniawan et al. (section 4, Table 3).

    Parameters
    ----------
    abbr : str
        The method's abbreviation (``"SL"``, ``"AR"``, ...).
    with_abbr : bool, default True
        Append the abbreviation in parentheses.

    Returns
    -------
    str
        The name; an unknown abbreviation is returned as given.

    Examples
    --------
    >>> method_label("SL"), method_label("SL", with_abbr=False), method_label("XYZ")
    ('Soft labelling (SL)', 'Soft labelling', 'XYZ')
    """
    name = METHOD_NAMES.get(abbr)
    if name is None:
        return str(abbr)
    return f"{name} ({abbr})" if with_abbr else name


def paper_label(key: str) -> str:
    """Citation of one of the papers HLV Lens implements (:data:`PAPERS`).

    Parameters
    ----------
    key : str
        ``"kurniawan"``, ``"stutz"``, ``"marchal"``, ``"perseval"``, ``"basile"``,
        ``"calderon"``, ``"baan"``, ...

    Returns
    -------
    str
        The citation people read.

    Raises
    ------
    KeyError
        Unknown key.

    Examples
    --------
    >>> paper_label("basile")
    'Basile, A Measure of Systematic Disagreement'
    """
    return PAPERS[key]


# ------------------------------------------------------ models against the human pool
PAPERS.update({
    "calderon": "Calderon, Reichart & Dror (ACL 2025), The Alternative Annotator Test for "
                "LLM-as-a-Judge",
    "baan": "Baan, Aziz, Plank & Fernández (EMNLP 2022), Stop Measuring Calibration When "
            "Humans Disagree",
})

METRIC_NAMES.update({
    "hard_macro_precision": "Hard macro precision",
    "hard_macro_recall": "Hard macro recall",
    "soft_macro_precision": "Soft macro precision",
    "soft_macro_recall": "Soft macro recall",
    "dist_ce": "DistCE (distance to the human distribution)",
    "ent_ce": "EntCE (entropy gap, absolute)",
    "ent_ce_signed": "EntCE (entropy gap, signed)",
    "rank_cs": "RankCS (same class ranking as humans)",
    "top1": "Human top-1 accuracy",
    "top2": "Human 2nd-class match",
    "top3": "Human 3rd-class match",
    "ece": "ECE against the human majority",
    "f1_macro": "Macro F1 against the human majority",
})

TERMS.update({
    "alt_test": Term(
        "Alternative Annotator Test",
        "Can the model replace one of your annotators? Each annotator is left out in turn, and "
        "the model and that annotator compete on who agrees better with the remaining "
        "annotators, item by item.",
        "The model 'wins' against an annotator when a one-sided test shows it is worse by "
        "less than epsilon; it passes when it wins against at least half of the annotators.",
        "5 annotators tested, the model wins against 3: winning rate 0.6, so it passes: "
        "dropping one annotator for the model is justified at this epsilon.",
        "Per annotator j: d_i = [s_h >= s_f] - [s_f >= s_h] with s = share of the other "
        "annotators agreeing (or minus RMSE); one-sided t-test of E[d] >= epsilon; "
        "Benjamini-Yekutieli over annotators; winning rate = rejected / tested, pass iff >= "
        "0.5. Calderon, Reichart & Dror (ACL 2025), section 3.",
    ),
    "winning_rate": Term(
        "Winning rate (omega)",
        "The share of tested annotators the model 'beats': where it represents the other "
        "annotators at least as well as that annotator, allowing the margin epsilon.",
        "0.5 or more: the paper's threshold to replace an annotator by the model. Below: keep "
        "the humans.",
        "A winning rate of 0.6 with 5 annotators: the test found the model as good as 3 of "
        "them (within epsilon); you could drop one annotator and use the model's label instead.",
        "omega = (annotators whose null hypothesis 'the human is better by at least epsilon' "
        "is rejected by Benjamini-Yekutieli at q) / (annotators tested). Calderon et al., "
        "section 3.",
    ),
    "advantage_probability": Term(
        "Advantage probability (rho)",
        "How often the model matches the other annotators at least as well as the left-out "
        "annotator, averaged over annotators; use it to rank models.",
        "1: never worse than a human; 0.5: as often better as worse.",
        "rho = 0.8: on 8 items in 10 the model's label agrees with the others at least as much "
        "as the human's label does.",
        "rho_j = mean over j's items of [s_f >= s_h] (ties count for the model); rho = mean "
        "over tested annotators. Calderon et al., section 3.",
    ),
    "alt_epsilon": Term(
        "Epsilon (cost-benefit margin)",
        "How much worse than a human the model may be and still count as a replacement, in "
        "exchange for being cheaper and faster.",
        "Higher epsilon makes passing easier. The paper suggests 0.2 for experts, 0.15 for "
        "skilled annotators, 0.1 for crowd workers, lower when annotators agree little.",
        "Epsilon 0.1: the model may lose 10 percentage points more item duels than it wins.",
        "The null hypothesis of the one-sided test is E[W_h - W_f] >= epsilon. Calderon et al., "
        "section 3.",
    ),
    "human_ceiling": Term(
        "Human ceiling",
        "Every annotator scored against the other annotators with the same metric as the "
        "model: the range a model score should be read against.",
        "A model inside the range scores like one more annotator; above the range it agrees "
        "with the crowd better than a single person does.",
        "Annotators reach hard accuracy 0.80-0.90 against the others and the model 0.86 on the "
        "same items: the model is inside the human range.",
        "Target P^{-j} = distribution of the other annotators' labels on each item j labelled; "
        "j's one-hot label is scored against it with the metrics of Kurniawan et al.; percentile "
        "bootstrap over items. An HLV Lens definition (docs/conventions.md).",
    ),
    "dist_ce": Term(
        "DistCE",
        "How far the model's probabilities are from the share of people who chose each label, "
        "item by item.",
        "0: the model splits its probability exactly like the humans. 1: completely different.",
        "Humans split 50% / 50%, the model says 80% / 20%: distance 0.3 on that item.",
        "Mean over items of the total variation distance 1/2 sum_k |Q_ik - H_ik|. Baan et al. "
        "(EMNLP 2022), section 5.",
    ),
    "ent_ce": Term(
        "EntCE",
        "Whether the model is as uncertain as the humans are divided, item by item.",
        "0: same uncertainty; signed > 0: the model hesitates more than people do, < 0: it is "
        "more confident than the disagreement warrants.",
        "Humans split 50/50 (entropy 0.69), the model says 99/1 (entropy 0.06): gap 0.64.",
        "Mean over items of |Ent(Q_i) - Ent(H_i)| in nats (signed: without the absolute "
        "value). Baan et al., section 5.",
    ),
    "rank_cs": Term(
        "RankCS",
        "The share of items where the model orders the labels exactly like the humans do, "
        "from most to least chosen.",
        "1: always the same order; low values mean the model's second guesses are not the "
        "people's.",
        "Humans: neutral > entailment > contradiction; the model: neutral > contradiction > "
        "entailment: a mismatch on that item.",
        "Rankings by a stable ascending sort (ties: the lower class index ranks lower); share "
        "of items with identical rankings. Baan et al., section 5.",
    ),
    "ece_majority": Term(
        "ECE against the majority",
        "The usual calibration error: does a model that says 70% get the majority label right "
        "70% of the time?",
        "When people disagree it punishes a model that copies their split: the 'oracle' that "
        "predicts the human distribution exactly still has ECE above 0.",
        "Humans split 60/40 on many items; a model saying 60% is right 100% of the time "
        "against the majority, so ECE reports an error of 0.4 there.",
        "Equal-width confidence bins (a, b]; sum over bins of (n_b / n) |mean confidence - "
        "accuracy against argmax of the votes|. Guo et al. (2017); Baan et al., section 3.",
    ),
})


# ------------------------------------------------------------ signal or noise (errors, competence)
PAPERS.update({
    "varierr": "Weber-Genzel et al. (2024), VariErr NLI: Separating Annotation Error from Human "
               "Label Variation",
    "dawid_skene": "Dawid & Skene (1979), Maximum Likelihood Estimation of Observer Error-Rates "
                   "Using the EM Algorithm",
    "mace": "Hovy et al. (2013), Learning Whom to Trust with MACE",
})

TERMS.update({
    "possible_error": Term(
        "Possible error",
        "A label that looks more like a slip than a reading: few people chose it, and those who "
        "did often stand alone. It is a score and a rank for re-checking, never a verdict.",
        "Rank 1 is the label most worth a second look. A high score can still be a legitimate "
        "minority reading: look at who chose it (reliable, systematic) and at their explanation.",
        "On VariErr NLI, 'contradiction' chosen by one of four annotators, who often stands "
        "alone elsewhere, ranks high; the same label chosen by a systematic camp ranks lower.",
        "Default score: 1 - P(label present) from a Dawid-Skene fit (one binary fit per class for "
        "multi-label data), EM to the fixed point. Other scores: label count, share of others not "
        "choosing, the choosers' singleton rate, one-coin DS, MACE, peer validity judgments. "
        "Evaluated by average precision and tie-aware P@k / R@k as in Weber-Genzel et al. (2024), "
        "VariErr NLI, section 5.",
    ),
    "annotator_verdict": Term(
        "Reliable, unreliable or systematic",
        "Whether an annotator's disagreements look random (unreliable: careless or guessing) or "
        "follow a pattern (systematic: a consistent reading of some kind of item, a perspective).",
        "Unreliable = skill far below the typical annotator's, across the board. Systematic = one "
        "kind of confusion at least 2.5 times as frequent as for the median annotator, or "
        "agreeing with their own camp on a subset more than with the majority. A systematic "
        "minority is a perspective, not noise.",
        "A reviewer who answers 'offensive' on every tweet about one topic but agrees elsewhere "
        "is systematic; one who answers at random everywhere is unreliable.",
        "One-coin Dawid-Skene skill (unreliable when below the midpoint of chance 1/K and the "
        "median skill), the Dawid-Skene confusion cell with the largest prior-weighted "
        "off-diagonal mass against the median of that cell (systematic at >= 2.5x), or own-camp "
        "agreement ahead of majority agreement by >= 0.1 on a chosen subset of items (camps from "
        "Basile's signed graph or a known annotator trait; off without a subset); fewer than 20 "
        "labels = insufficient data. "
        "Dawid & Skene (1979), section 2; Hovy et al. (2013), MACE, section 2.",
    ),
    "annotator_skill": Term(
        "Skill (Dawid-Skene)",
        "How often an annotator gives the label a statistical model believes is right, learned "
        "from everyone's labels at once (no gold needed).",
        "1 = always right; 1/K (K labels) = no better than guessing. Compare annotators of the "
        "same dataset, not across datasets.",
        "With two labels, skill 0.95 is a careful annotator, 0.5 a coin flip.",
        "One-coin Dawid-Skene: EM alternates posteriors of the true class per item and one "
        "accuracy s_a per annotator (share of the posterior mass on the labels a gave), run to a "
        "fixed point (changes below 1e-10). Dawid & Skene (1979), section 2.",
    ),
})
