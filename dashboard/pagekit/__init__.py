"""The kit every page of the app is built with, over the lesson, the data and the charts below it: a page's
frame and pickers (page_kit), a chart drawn with its name, summary and tables (figures; lean_chart in a
browser), the categorical inspector's parts, and the warming of a fresh server process (warm)."""
