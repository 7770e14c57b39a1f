# The one image behind the web, worker, beat and flower services of docker-compose.yml.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
# Tesseract reads screenshots for the personal-data pre-screen.
RUN apt-get update && apt-get install -y --no-install-recommends tesseract-ocr && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN useradd --system --home /app trailmark && mkdir -p /app/var && chown trailmark /app/var
USER trailmark
EXPOSE 8000
