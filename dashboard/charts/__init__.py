"""Chart builders, one module per topic (the page that draws them); ``theme`` holds the shared look."""
