"""The HTMX dashboard: pages, partials and static assets (front-end libraries come from npm)."""
