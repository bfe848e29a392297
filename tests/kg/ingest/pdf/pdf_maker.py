"""Small PDFs written with pymupdf for the PDF reader's tests: each shows one layout feature."""

from __future__ import annotations

from pathlib import Path

import pymupdf

WIDTH, HEIGHT = 595, 842  # A4 in points
LOREM = ("The river delta grew by four kilometres over the decade as sediment from the upper basin "
         "settled in the shallow bays, and the survey teams measured the new banks every spring. ")


def paragraph(page: pymupdf.Page, top: float, text: str, size: float = 10, left: float = 72,
              right: float = WIDTH - 72, font: str = "helv") -> float:
    """Wrapped text in a box from `top`; returns the y below it."""
    height = 14 * size
    rect = pymupdf.Rect(left, top, right, top + height)
    spare = page.insert_textbox(rect, text, fontsize=size, fontname=font)
    assert spare >= 0, "text did not fit its box"
    return top + height - spare + size


def line(page: pymupdf.Page, y: float, text: str, size: float = 10, x: float = 72, font: str = "helv") -> None:
    page.insert_text((x, y), text, fontsize=size, fontname=font)


def save(doc: pymupdf.Document, path: Path, title: str = "") -> Path:
    if title:
        doc.set_metadata({"title": title})
    doc.save(str(path))
    doc.close()
    return path


CHART_BARS = (("Tessaline", 71.4), ("Korvex", 68.2), ("Brumhal", 64.9), ("Ostrander", 59.3))
CHART_PROSE = (
    "We compare four forecasting models on the harbour traffic benchmark introduced in this report.",
    "Tessaline was trained only on maritime weather logs collected by the harbour office during the winter storms.",
    "Korvex learns from container manifests that shipping agents file before each arrival at the terminal.",
)


def bar_chart_report(path: Path) -> Path:
    """A report page: prose about two of four models, a vector bar chart of all four (bars, a labelled
    axis, each bar's value printed above it, short caption), and a raster photo with a short caption."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 60, "Forecasting models for harbour traffic", 16)
    line(page, 90, "1 Introduction", 12)  # what follows is body, not front matter
    top = 100
    for text in CHART_PROSE:
        top = paragraph(page, top, text) + 6
    axis = 420
    page.draw_line((80, axis), (440, axis), width=1)
    for i, (name, value) in enumerate(CHART_BARS):
        x = 100 + 85 * i
        bar_top = axis - (value - 40) * 4
        page.draw_rect(pymupdf.Rect(x, bar_top, x + 50, axis), color=(0, 0, 0), fill=(0.5, 0.5, 0.8))
        for text, y in ((str(value), bar_top - 3), (name, axis + 10)):  # centred over / under the bar
            page.insert_text((x + 25 - pymupdf.get_text_length(text, fontsize=8) / 2, y), text, fontsize=8)
    line(page, 450, "Figure 1: Accuracy of the four models.")
    paragraph(page, 480, "The benchmark covers three ports and two seasons of vessel movements, with hourly "
                         "counts of arrivals at each terminal of the harbour.")
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 300, 160), False)
    pix.clear_with(90)
    page.insert_image(pymupdf.Rect(100, 560, 400, 720), pixmap=pix)
    line(page, 740, "Figure 2: The harbour at dawn.")
    return save(doc, path, title="Forecasting models for harbour traffic")


GROUPED_SERIES = (("Tessaline", (0.3, 0.4, 0.9)), ("Korvex", (0.9, 0.5, 0.2)), ("Brumhal", (0.6, 0.6, 0.6)))
GROUPED_GROUPS = ("Harbour", "Canal", "Estuary")
GROUPED_VALUES = ((71.4, 66.0, 58.2), (68.2, 69.5, 61.7), (64.9, 63.1, 66.8))  # [series][group]


def grouped_bar_chart_report(path: Path, title: str = "Forecasting models for harbour traffic",
                             layout: str = "background") -> Path:
    """A report page with a grouped bar chart told apart by colour only: a legend of three coloured
    swatches with model names, three groups of three bars with each bar's value printed above it, and
    two-line group labels under the axis ("Harbour" over "(Acc.)"), then a caption and prose.
    `layout`: "background" (a white box behind legend, plot and labels), "legend_apart" (no box; the
    legend strip 20 points above the plot's frame), "framed" (a border around chart and caption)."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 60, title, 16)
    line(page, 90, "1 Introduction", 12)
    top = 100
    for text in CHART_PROSE:
        top = paragraph(page, top, text) + 6
    if layout == "background":
        page.draw_rect(pymupdf.Rect(70, 228, 470, 448), color=None, fill=(1, 1, 1))
    if layout == "framed":
        page.draw_rect(pymupdf.Rect(66, 224, 474, 472), color=(0.5, 0.5, 0.5), width=0.6)
    legend_y = 222 if layout == "legend_apart" else 236
    for s, (name, colour) in enumerate(GROUPED_SERIES):  # the legend: swatch, then name
        x = 110 + 110 * s
        page.draw_rect(pymupdf.Rect(x, legend_y, x + 10, legend_y + 8), color=None, fill=colour)
        page.insert_text((x + 14, legend_y + 8), name, fontsize=8)
    axis = 420
    page.draw_rect(pymupdf.Rect(80, 250, 460, axis), color=(0, 0, 0), width=0.8)  # the plot's frame
    for g, group in enumerate(GROUPED_GROUPS):
        left = 100 + 120 * g
        for s, (_name, colour) in enumerate(GROUPED_SERIES):
            value = GROUPED_VALUES[s][g]
            x = left + 30 * s
            bar_top = axis - (value - 40) * 4
            page.draw_rect(pymupdf.Rect(x, bar_top, x + 26, axis), color=None, fill=colour)
            text = str(value)
            page.insert_text((x + 13 - pymupdf.get_text_length(text, fontsize=7) / 2, bar_top - 3), text, fontsize=7)
        for text, y in ((group, axis + 12), ("(Acc.)", axis + 21)):
            page.insert_text((left + 43 - pymupdf.get_text_length(text, fontsize=8) / 2, y), text, fontsize=8)
    line(page, 460, "Figure 1: Accuracy of three models on three ports.")
    top = paragraph(page, 490, "Brumhal reads hourly counts of arrivals at each terminal of the harbour, and was "
                               "tuned on the estuary crossings of the last two seasons.") + 6
    paragraph(page, top, GROUPED_RIVAL)
    return save(doc, path, title=title)


# A system outside the chart with a value of one of its measures, and a name from the chart beside it.
GROUPED_RIVAL = "FerroNet reaches 57.3 accuracy on the canal crossings, well below Korvex."


PICTURED_COLUMNS = ("Harbour", "Canal")
PICTURED_ROWS = (("Tessaline", "71.4%", "66.0%"), ("Korvex", "68.2%", "69.5%"), ("Brumhal", "64.9%", "63.1%"),
                 ("Quillon", "59.3%", "61.8%"))


def table_png(path: Path, rows=PICTURED_ROWS, columns=PICTURED_COLUMNS) -> Path:
    """A results table as model cards paste it: a picture of names down the left and a column of
    scores under each heading, no ruling, no caption."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(5, 0.5 + 0.45 * (len(rows) + 1)))
    height = len(rows) + 1
    fig.text(0.05, 1 - 0.5 / height, "Model", fontsize=12, weight="bold", va="center")
    for j, column in enumerate(columns):
        fig.text(0.5 + 0.25 * j, 1 - 0.5 / height, column, fontsize=12, weight="bold", va="center")
    for i, (name, *values) in enumerate(rows, start=1):
        y = 1 - (i + 0.5) / height
        fig.text(0.05, y, name, fontsize=12, va="center")
        for j, value in enumerate(values):
            fig.text(0.5 + 0.25 * j, y, value, fontsize=12, va="center")
    fig.savefig(path, dpi=200, facecolor="white")
    plt.close(fig)
    return path


def pictured_table_report(path: Path) -> Path:
    """A report page: prose about two of four models, then their results table pasted as a picture
    with no caption (as model cards paste theirs), then prose again."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 60, "Forecasting models for harbour traffic", 16)
    line(page, 90, "1 Introduction", 12)
    top = 100
    for text in CHART_PROSE:
        top = paragraph(page, top, text) + 6
    png = table_png(path.with_suffix(".png"))
    page.insert_image(pymupdf.Rect(72, 240, 472, 240 + 400 * 2.75 / 5), filename=str(png))
    paragraph(page, 500, "Brumhal reads hourly counts of arrivals at each terminal of the harbour, and was "
                         "tuned on the estuary crossings of the last two seasons.")
    return save(doc, path, title="Forecasting models for harbour traffic")


PIE_SHARES = (("Webpages", "61.5%"), ("Code", "18.0%"), ("Books", "12.5%"), ("Papers", "8.0%"))


def pie_png(path: Path, shares=PIE_SHARES, hole: float = 0.0) -> Path:
    """A data-mixture pie as LLM reports paste it: wedges with white seams, each labelled "Name: share"."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 4))
    values = [float(v.rstrip("%")) for _n, v in shares]
    wedge = {"edgecolor": "white", "linewidth": 1.5} | ({"width": 1 - hole} if hole else {})
    ax.pie(values, labels=[f"{n}: {v}" for n, v in shares], startangle=90, wedgeprops=wedge,
           colors=["#4c7be0", "#f0c850", "#e86a5a", "#7fd0f0"][: len(shares)], textprops={"fontsize": 11})
    ax.set_aspect("equal")
    fig.savefig(path, dpi=150, facecolor="white", bbox_inches="tight", pad_inches=0.3)
    plt.close(fig)
    return path


def pie_report(path: Path) -> Path:
    """A report page: prose on the training data, then its mixture as a captioned pie picture."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 60, "Training the Tessaline language model", 16)
    top = paragraph(page, 90, "Tessaline was trained on a mixture of webpages, code, books and papers, "
                              "filtered for quality and deduplicated across sources.") + 6
    png = pie_png(path.with_suffix(".png"))
    page.insert_image(pymupdf.Rect(122, top + 10, 422, top + 250), filename=str(png))
    line(page, top + 270, "Figure 1: Data sources distribution.", 10, x=200)
    return save(doc, path, title="Training the Tessaline language model")


def hatched_chart_report(path: Path) -> Path:
    """A page of DeepSeek's chart style: above the caption, a panel-less scatter note, a white plot
    background behind the bars, each bar drawn down past the page's foot and clipped at the axis, the
    first series hatched (its bars outlines only, its swatch filled and outlined in white), a panel
    caption "(b) ..." of 80+ characters between the chart and the figure caption."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 60, "Forecasting models for harbour traffic", 16)
    paragraph(page, 80, " ".join(CHART_PROSE))
    axis = 420
    ops = []

    def rect(x0, y0, x1, y1, fill=None, stroke=None):  # PDF space: y grows upwards
        box = f"{x0} {HEIGHT - y1} {x1 - x0} {y1 - y0} re"
        if fill:
            ops.append(f"{fill[0]} {fill[1]} {fill[2]} rg {box} f")
        if stroke:
            ops.append(f"{stroke[0]} {stroke[1]} {stroke[2]} RG 0.5 w {box} S")

    rect(80, 250, 460, axis, fill=(1, 1, 1))  # the plot's white background
    for s, (name, colour) in enumerate(GROUPED_SERIES):  # legend: swatch, then name
        x = 110 + 110 * s
        if s == 0:  # hatched: filled in two halves, outlined in white
            rect(x, 236, x + 5, 244, fill=colour)
            rect(x + 5, 236, x + 10, 244, fill=colour)
            rect(x, 236, x + 10, 244, stroke=(1, 1, 1))
        else:
            rect(x, 236, x + 10, 244, fill=colour)
    for g, _group in enumerate(GROUPED_GROUPS):
        for s, (_name, colour) in enumerate(GROUPED_SERIES):
            x, top = 100 + 120 * g + 30 * s, axis - (GROUPED_VALUES[s][g] - 40) * 4
            ops.append(f"q 80 {HEIGHT - axis} 380 {axis - 250} re W n")  # clipped at the axis
            rect(x, top, x + 26, HEIGHT + 150, **({"stroke": (1, 1, 1)} if s == 0 else {"fill": colour}))
            ops.append("Q")
    page.insert_text((0, 0), " ")  # a content stream to append to
    xref = page.get_contents()[-1]
    doc.update_stream(xref, doc.xref_stream(xref) + ("\n" + "\n".join(ops) + "\n").encode())
    for s, (name, _colour) in enumerate(GROUPED_SERIES):
        page.insert_text((110 + 110 * s + 14, 244), name, fontsize=8)
    for g, group in enumerate(GROUPED_GROUPS):
        for s in range(len(GROUPED_SERIES)):
            x, top = 100 + 120 * g + 30 * s, axis - (GROUPED_VALUES[s][g] - 40) * 4
            text = str(GROUPED_VALUES[s][g])
            page.insert_text((x + 13 - pymupdf.get_text_length(text, fontsize=7) / 2, top - 3), text, fontsize=7)
        page.insert_text((100 + 120 * g + 43 - pymupdf.get_text_length(group, fontsize=8) / 2, axis + 12), group,
                         fontsize=8)
    line(page, 446, "(b) Accuracy of the three forecasting models on the harbour, canal and estuary crossings.", 9)
    line(page, 470, "Figure 1: Accuracy of three models on three ports.")
    paragraph(page, 500, GROUPED_RIVAL)
    return save(doc, path, title="Forecasting models for harbour traffic")
