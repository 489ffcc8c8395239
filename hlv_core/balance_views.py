"""What the Annotator graph page draws from a sigma result (Basile): the strongest edges and the
annotators of the heatmap in camp order.

These were computed inside pages/graph.py; the ``sigma`` command can print them too.
"""

from __future__ import annotations

import pandas as pd

from .balance import CampsResult, SigmaResult

__all__ = ["heatmap_annotators", "strongest_edges"]


def strongest_edges(edges: pd.DataFrame, alpha: float, n: int, *, sign: int | None = None
                    ) -> pd.DataFrame:
    """The ``n`` edges whose pairwise alpha is farthest from the overall ``alpha``
    (``|alpha_ij - alpha|``, largest first; ties in the order of pandas' default sort, as the
    page had it), optionally only
    ``sign`` = +1 or -1 edges. ``edges``: ``SigmaResult.edges`` (``alpha``, ``sign``, ...)."""
    shown = edges if sign is None else edges[edges["sign"] == sign]
    strength = (shown["alpha"] - alpha).abs()
    return shown.loc[strength.sort_values(ascending=False).index[:n]]


def heatmap_annotators(result: SigmaResult, partition: CampsResult, n: int) -> list[str]:
    """The ``n`` annotators with most annotations, ordered camp 0, camp 1, then those without an
    edge (camp -1), by id within a camp: the rows of the pairwise-alpha heatmap."""
    ids = list(result.nodes.sort_values("n_annotations", ascending=False)["annotator_id"])[:n]
    ids.sort(key=lambda a: (int(partition.camps.get(a, -1)) % 3, a))
    return ids

